// An AuditLog that passes through to another, or refuses every append while `failing` is set
// (a full disk, a lost database) — so a test can see what an action does without its audit.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>

#include <certsteward/ports/audit_log.hpp>

namespace certsteward::testing {

// An AuditLog that passes through to another, or refuses every append while `failing` is set
// (a full disk, a lost database) — so a test can see what an action does without its audit.
class FailableAuditLog : public ports::AuditLog {
 public:
  explicit FailableAuditLog(ports::AuditLog& inner) : inner_(inner) {}
  std::atomic<bool> failing{false};

  domain::Result<domain::AuditEntry> append(const domain::AuditEntry& draft,
                                            const domain::AuditChainSealer& sealer) override {
    if (failing) {
      return domain::makeError(domain::ErrorCode::unavailable, "the audit log cannot be written");
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
