// The leader lock in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_leader_lock.hpp>

#include <certsteward/adapters/store/mongo/mongo_documents.hpp>

namespace certsteward::adapters::mongo {

domain::Result<bool> MongoLeaderLock::tryAcquire(const std::string& name, const std::string& holder,
                                                 domain::Timestamp now, domain::Duration ttl) {
  return guarded([&]() -> domain::Result<bool> {
    auto c = db_.client();
    const bson_oid_t oid = keyOid("leader|" + name);
    try {  // make sure the lease document exists (a free lease)
      c.insert("leader_locks",
               Bson().oid("_id", oid).str("name", name).str("holder", "").i64("expires_at", 0));
    } catch (const MongoError& e) {
      if (!isDuplicateKey(e)) throw;
    }
    // Take it if it is ours or expired, in one atomic step.
    bson_t orArray;
    Bson filter;
    filter.oid("_id", oid);
    bson_append_array_begin(filter.get(), "$or", -1, &orArray);
    Bson mine;
    mine.str("holder", holder);
    Bson expired;
    expired.doc("expires_at", Bson().ts("$lte", now));
    bson_append_document(&orArray, "0", -1, mine.get());
    bson_append_document(&orArray, "1", -1, expired.get());
    bson_append_array_end(filter.get(), &orArray);
    auto after = c.findAndModify(
        "leader_locks", filter,
        Bson().doc("$set", Bson().str("holder", holder).ts("expires_at", now + ttl)), false, true);
    return after.has_value();
  });
}

domain::Status MongoLeaderLock::release(const std::string& name, const std::string& holder) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.updateOne("leader_locks", Bson().oid("_id", keyOid("leader|" + name)).str("holder", holder),
                Bson().doc("$set", Bson().str("holder", "").i64("expires_at", 0)));
    return {};
  });
}

domain::Result<std::optional<std::string>> MongoLeaderLock::holder(const std::string& name,
                                                                   domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<std::string>> {
    auto c = db_.client();
    Bson filter;
    filter.oid("_id", keyOid("leader|" + name)).doc("expires_at", Bson().ts("$gt", now));
    auto found = c.findOne("leader_locks", filter, Bson());
    if (!found) return std::optional<std::string>{};
    const std::string h = textField(Bson::fromJson(*found), "holder");
    if (h.empty()) return std::optional<std::string>{};
    return std::optional<std::string>(h);
  });
}

}  // namespace certsteward::adapters::mongo
