// An AuditLog that hands every call to another: the base of the test audit logs that change
// one thing (FailableAuditLog, CatalogCheckedAuditLog) and pass the rest through.
#pragma once

#include <cstdint>
#include <optional>

#include <certsteward/ports/audit_log.hpp>

namespace certsteward::testing {

class PassThroughAuditLog : public ports::AuditLog {
 public:
  explicit PassThroughAuditLog(ports::AuditLog& inner) : inner_(inner) {}

  domain::Result<domain::AuditEntry> append(const domain::AuditEntry& draft,
                                            const domain::AuditChainSealer& sealer) override {
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
