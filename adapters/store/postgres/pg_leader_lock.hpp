// PgLeaderLock: named leases, taken or renewed in one statement. Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/leader_lock.hpp>

namespace certsteward::adapters::postgres {

class PgLeaderLock : public ports::LeaderLock {
 public:
  explicit PgLeaderLock(PgDatabase& db) : db_(db) {}
  domain::Result<bool> tryAcquire(const std::string& name, const std::string& holder,
                                  domain::Timestamp now, domain::Duration ttl) override;
  domain::Status release(const std::string& name, const std::string& holder) override;
  domain::Result<std::optional<std::string>> holder(const std::string& name,
                                                    domain::Timestamp now) const override;

 private:
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
