// MongoAuditLog: the audit chain in `audit_log`, its head in `audit_head`; appenders chain one
// after another through a compare-and-set on the head. Thread-safe: each call borrows a pooled
// client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/audit_log.hpp>

namespace certsteward::adapters::mongo {

class MongoAuditLog : public ports::AuditLog {
 public:
  explicit MongoAuditLog(MongoDatabase& db) : db_(db) {}
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
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo
