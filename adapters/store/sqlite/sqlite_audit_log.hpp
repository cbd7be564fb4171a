// SqliteAuditLog: the audit chain; appends run in BEGIN IMMEDIATE, so writers in every process
// chain one after another. Thread-safe.
#pragma once

#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/ports/audit_log.hpp>

namespace certsteward::adapters::sqlite {

class SqliteAuditLog : public ports::AuditLog {
 public:
  explicit SqliteAuditLog(Database& db) : db_(db) {}

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
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite
