// An AuditLog that passes through to another, or refuses every append while `failing` is set
// (a full disk, a lost database) — so a test can see what an action does without its audit.
#pragma once

#include <atomic>

#include <certsteward/testing/pass_through_audit_log.hpp>

namespace certsteward::testing {

class FailableAuditLog : public PassThroughAuditLog {
 public:
  using PassThroughAuditLog::PassThroughAuditLog;
  std::atomic<bool> failing{false};

  domain::Result<domain::AuditEntry> append(const domain::AuditEntry& draft,
                                            const domain::AuditChainSealer& sealer) override {
    if (failing) {
      return domain::makeError(domain::ErrorCode::unavailable, "the audit log cannot be written");
    }
    return PassThroughAuditLog::append(draft, sealer);
  }
};

}  // namespace certsteward::testing
