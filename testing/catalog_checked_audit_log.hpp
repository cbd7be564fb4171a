// An AuditLog that passes through to another, and refuses an action that domain::auditActions()
// does not list with that resource type: the service tests record through it, so a test of a new
// action fails until the catalog the audit filters offer names it.
#pragma once

#include <cstdint>
#include <optional>

#include <certsteward/domain/audit_catalog.hpp>
#include <certsteward/ports/audit_log.hpp>

namespace certsteward::testing {

class CatalogCheckedAuditLog : public ports::AuditLog {
 public:
  explicit CatalogCheckedAuditLog(ports::AuditLog& inner) : inner_(inner) {}

  domain::Result<domain::AuditEntry> append(const domain::AuditEntry& draft,
                                            const domain::AuditChainSealer& sealer) override {
    if (const auto* listed = domain::findAuditAction(draft.action);
        listed == nullptr || listed->resource_type != draft.resource_type) {
      return domain::makeError(domain::ErrorCode::internal,
                               "audit action '" + draft.action + "' on '" + draft.resource_type +
                                   "' is not in domain/audit_catalog.cpp: add it there");
    }
    return inner_.append(draft, sealer);
  }
  domain::Result<domain::AuditEntry> get(const domain::Id& id) const override {
    return inner_.get(id);
  }
  domain::Result<domain::Page<domain::AuditEntry>> list(
      const ports::AuditFilter& filter, const domain::PageRequest& page) const override {
    return inner_.list(filter, page);
  }
  domain::Result<ports::AuditChainPage> chainPage(std::optional<domain::Timestamp> since,
                                                  std::int64_t limit) const override {
    return inner_.chainPage(since, limit);
  }
  domain::Result<std::optional<domain::AuditEntry>> head() const override { return inner_.head(); }
  domain::Result<std::optional<domain::AuditEntry>> atSequence(
      std::int64_t sequence) const override {
    return inner_.atSequence(sequence);
  }

 private:
  ports::AuditLog& inner_;
};

}  // namespace certsteward::testing
