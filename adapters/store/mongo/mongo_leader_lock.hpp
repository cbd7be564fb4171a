// MongoLeaderLock: named leases, taken or renewed by one atomic findAndModify. Thread-safe: each
// call borrows a pooled client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/leader_lock.hpp>

namespace certsteward::adapters::mongo {

class MongoLeaderLock : public ports::LeaderLock {
 public:
  explicit MongoLeaderLock(MongoDatabase& db) : db_(db) {}
  domain::Result<bool> tryAcquire(const std::string& name, const std::string& holder,
                                  domain::Timestamp now, domain::Duration ttl) override;
  domain::Status release(const std::string& name, const std::string& holder) override;
  domain::Result<std::optional<std::string>> holder(const std::string& name,
                                                    domain::Timestamp now) const override;

 private:
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo
