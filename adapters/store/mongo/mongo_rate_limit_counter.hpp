// MongoRateLimitCounter: one counter document per bucket and window, incremented by one atomic
// findAndModify; a TTL index drops past windows. Thread-safe: each call borrows a pooled client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/rate_limit_counter.hpp>

namespace certsteward::adapters::mongo {

class MongoRateLimitCounter : public ports::RateLimitCounter {
 public:
  explicit MongoRateLimitCounter(MongoDatabase& db) : db_(db) {}
  domain::Result<std::int64_t> hit(const std::string& bucket, domain::Duration window,
                                   domain::Timestamp now) override;

 private:
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo
