// Rate-limit counters in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_rate_limit_counter.hpp>

#include <certsteward/adapters/store/mongo/mongo_documents.hpp>

namespace certsteward::adapters::mongo {

domain::Result<std::int64_t> MongoRateLimitCounter::hit(const std::string& bucket,
                                                        domain::Duration window,
                                                        domain::Timestamp now) {
  if (window <= domain::Duration::zero()) {
    return domain::makeError(domain::ErrorCode::invalid_argument, "window must be positive");
  }
  return guarded([&]() -> domain::Result<std::int64_t> {
    const auto since = now.time_since_epoch();
    const domain::Timestamp start{since - since % window};
    auto c = db_.client();
    Bson update;
    update.doc("$inc", Bson().i64("count", 1))
        .doc("$set", Bson()
                         .str("bucket", bucket)
                         .ts("window_start", start)
                         .date("expire_at", start + window));
    auto after =
        c.findAndModify("rate_limits",
                        Bson().oid("_id", keyOid("rate|" + bucket + "|" +
                                                 std::to_string(start.time_since_epoch().count()))),
                        update, true, true);
    if (!after) return domain::makeError(domain::ErrorCode::internal, "rate limit counter lost");
    return intField(Bson::fromJson(*after), "count").value_or(0);
  });
}

}  // namespace certsteward::adapters::mongo
