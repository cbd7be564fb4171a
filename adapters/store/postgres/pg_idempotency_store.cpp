// Idempotency records in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_idempotency_store.hpp>

#include <certsteward/adapters/store/codec/json_codec.hpp>
#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {

domain::Result<std::optional<domain::IdempotencyRecord>> PgIdempotencyStore::find(
    const std::string& key, domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<domain::IdempotencyRecord>> {
    auto rows = db_.exec(q("SELECT doc FROM idempotency WHERE key = ? AND expires_at > ?"),
                         {p(key), p(now)});
    if (rows.empty()) return std::optional<domain::IdempotencyRecord>{};
    auto decoded = codec::decode<domain::IdempotencyRecord>(rows.text(0, 0));
    if (!decoded) return decoded.error();
    return std::optional<domain::IdempotencyRecord>(std::move(*decoded));
  });
}

domain::Status PgIdempotencyStore::save(const domain::IdempotencyRecord& record,
                                        domain::Timestamp now) {
  return guarded([&]() -> domain::Status {
    // An expired record of the key goes first, so it does not block this one. Of concurrent
    // saves of one key, the INSERT of the first holds the key and the others wait for it, then
    // insert nothing: exactly one succeeds. The conflict rolls the pruning back, as in SQLite.
    return db_.transact({}, [&]() -> domain::Status {
      db_.exec(q("DELETE FROM idempotency WHERE expires_at <= ?"), {p(now)});
      auto inserted = db_.exec(q("INSERT INTO idempotency (key, expires_at, doc) VALUES (?, ?, ?) "
                                 "ON CONFLICT (key) DO NOTHING"),
                               {p(record.key), p(record.expires_at), p(codec::encode(record))});
      if (inserted.affected() == 0) {
        return domain::makeError(domain::ErrorCode::conflict,
                                 "a request with this Idempotency-Key is already recorded");
      }
      return {};
    });
  });
}

}  // namespace certsteward::adapters::postgres
