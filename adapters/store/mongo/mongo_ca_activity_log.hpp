// MongoCaActivityLog: what CAs were asked and answered, per directory, registered domain and
// kind; a TTL index drops records past the retention. Thread-safe: each call borrows a pooled
// client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/ca_activity_log.hpp>

namespace certsteward::adapters::mongo {

class MongoCaActivityLog : public ports::CaActivityLog {
 public:
  explicit MongoCaActivityLog(MongoDatabase& db) : db_(db) {}
  domain::Status record(const domain::CaActivity& activity) override;
  domain::Result<std::int64_t> count(const std::string& directoryUrl,
                                     const std::string& registeredDomain,
                                     domain::CaActivityKind kind,
                                     domain::Timestamp since) const override;
  domain::Result<std::optional<domain::CaActivity>> latest(
      const std::string& directoryUrl, const std::string& registeredDomain,
      domain::CaActivityKind kind) const override;
  domain::Result<std::optional<domain::CaActivity>> activeHold(
      const std::string& directoryUrl, const std::string& registeredDomain,
      const domain::Id& accountId, domain::Timestamp now) const override;

 private:
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo
