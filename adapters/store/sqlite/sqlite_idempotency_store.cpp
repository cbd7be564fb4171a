// Idempotency records in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_idempotency_store.hpp>

#include <certsteward/adapters/store/codec/json_codec.hpp>

namespace certsteward::adapters::sqlite {

domain::Result<std::optional<domain::IdempotencyRecord>> SqliteIdempotencyStore::find(
    const std::string& key, domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<domain::IdempotencyRecord>> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT doc FROM idempotency WHERE key = ? AND expires_at > ?");
    s.bind(key).bind(now);
    if (!s.step()) return std::optional<domain::IdempotencyRecord>{};
    auto decoded = codec::decode<domain::IdempotencyRecord>(s.text(0));
    if (!decoded) return decoded.error();
    return std::optional<domain::IdempotencyRecord>(std::move(*decoded));
  });
}

domain::Status SqliteIdempotencyStore::save(const domain::IdempotencyRecord& record,
                                            domain::Timestamp now) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    Transaction tx(*c, true);
    c->prepare("DELETE FROM idempotency WHERE expires_at <= ?").bind(now).run();
    auto s = c->prepare(
        "INSERT INTO idempotency (key, expires_at, doc) VALUES (?, ?, ?) ON CONFLICT (key) DO "
        "NOTHING");
    s.bind(record.key).bind(record.expires_at).bind(codec::encode(record));
    if (s.run() == 0) {
      return domain::makeError(domain::ErrorCode::conflict,
                               "a request with this Idempotency-Key is already recorded");
    }
    tx.commit();
    return {};
  });
}

}  // namespace certsteward::adapters::sqlite
