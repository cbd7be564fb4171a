// An AuditLog that passes through to another, and refuses an action that domain::auditActions()
// does not list with that resource type: the service tests record through it, so a test of a new
// action fails until the catalog the audit filters offer names it.
#pragma once

#include <certsteward/domain/audit_catalog.hpp>
#include <certsteward/testing/pass_through_audit_log.hpp>

namespace certsteward::testing {

class CatalogCheckedAuditLog : public PassThroughAuditLog {
 public:
  using PassThroughAuditLog::PassThroughAuditLog;

  domain::Result<domain::AuditEntry> append(const domain::AuditEntry& draft,
                                            const domain::AuditChainSealer& sealer) override {
    if (const auto* listed = domain::findAuditAction(draft.action);
        listed == nullptr || listed->resource_type != draft.resource_type) {
      return domain::makeError(domain::ErrorCode::internal,
                               "audit action '" + draft.action + "' on '" + draft.resource_type +
                                   "' is not in domain/audit_catalog.cpp: add it there");
    }
    return PassThroughAuditLog::append(draft, sealer);
  }
};

}  // namespace certsteward::testing
