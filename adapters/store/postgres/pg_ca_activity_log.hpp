// PgCaActivityLog: what CAs were asked and answered, per directory, registered domain and kind;
// records past the retention are dropped as new ones arrive. Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/ca_activity_log.hpp>

namespace certsteward::adapters::postgres {

class PgCaActivityLog : public ports::CaActivityLog {
 public:
  explicit PgCaActivityLog(PgDatabase& db) : db_(db) {}
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
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
