// Idempotency records in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_idempotency_store.hpp>

namespace certsteward::adapters::mongo {

domain::Result<std::optional<domain::IdempotencyRecord>> MongoIdempotencyStore::find(
    const std::string& key, domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<domain::IdempotencyRecord>> {
    auto c = db_.client();
    Bson filter;
    filter.oid("_id", keyOid("idem|" + key)).doc("expires_at", Bson().ts("$gt", now));
    auto found = c.findOne("idempotency", filter, Bson());
    if (!found) return std::optional<domain::IdempotencyRecord>{};
    return std::optional<domain::IdempotencyRecord>(
        decodeOrThrow<domain::IdempotencyRecord>(*found));
  });
}

domain::Status MongoIdempotencyStore::save(const domain::IdempotencyRecord& record,
                                           domain::Timestamp now) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    const bson_oid_t oid = keyOid("idem|" + record.key);
    // An expired record no longer holds its key (the TTL index removes it eventually).
    c.deleteMany("idempotency", Bson().oid("_id", oid).doc("expires_at", Bson().ts("$lte", now)));
    Bson doc = Bson::fromJson(codec::encode(record));
    doc.oid("_id", oid).date("expire_at", record.expires_at);
    try {
      c.insert("idempotency", doc);
    } catch (const MongoError& e) {
      if (!isDuplicateKey(e)) throw;
      return domain::makeError(domain::ErrorCode::conflict,
                               "a request with this Idempotency-Key is already recorded");
    }
    return {};
  });
}

}  // namespace certsteward::adapters::mongo
