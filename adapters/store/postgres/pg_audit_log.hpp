// PgAuditLog: the audit chain. An append holds an advisory lock until its transaction ends, so
// writers of every instance chain one after another. Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/audit_log.hpp>

namespace certsteward::adapters::postgres {

class PgAuditLog : public ports::AuditLog {
 public:
  explicit PgAuditLog(PgDatabase& db) : db_(db) {}

  domain::Result<domain::AuditEntry> append(const domain::AuditEntry& draft,
                                            const domain::AuditChainSealer& sealer) override;
  domain::Result<domain::AuditEntry> get(const domain::Id& id) const override;
  domain::Result<domain::Page<domain::AuditEntry>> list(
      const ports::AuditFilter& filter, const domain::PageRequest& page) const override;
  domain::Result<ports::AuditChainPage> chainPage(std::optional<domain::Timestamp> since,
                                                  std::int64_t limit) const override;
  domain::Result<std::optional<domain::AuditEntry>> head() const override;
  domain::Result<std::optional<domain::AuditEntry>> atSequence(
      std::int64_t sequence) const override;

 private:
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
