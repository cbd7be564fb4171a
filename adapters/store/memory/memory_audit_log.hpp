// MemoryAuditLog: the audit chain as a vector in chain order; appends serialize on one mutex.
// Thread-safe.
#pragma once

#include <mutex>
#include <unordered_map>
#include <vector>

#include <certsteward/ports/audit_log.hpp>

namespace certsteward::adapters::memory {

class MemoryAuditLog : public ports::AuditLog {
 public:
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
  // Tests of tamper detection rewrite entries in place (memory_audit_log_tamper.hpp, which no
  // library compiles).
  friend class MemoryAuditLogTamper;

  mutable std::mutex mu_;
  std::vector<domain::AuditEntry> chain_;
  std::unordered_map<domain::Id, std::size_t> positionById_;
};

}  // namespace certsteward::adapters::memory
