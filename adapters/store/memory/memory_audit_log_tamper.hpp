// For tests only (no library or binary of the project compiles it; installed with the memory
// store for embedding teams' contract runs): rewrites a stored audit entry in place, as someone
// with write access to the database could — MemoryAuditLog has no way to do it.
#pragma once

#include <mutex>

#include <certsteward/adapters/store/memory/memory_audit_log.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>

namespace certsteward::adapters::memory {

class MemoryAuditLogTamper {
 public:
  // Replaces the stored entry of `entry.id` with `entry`; nothing when there is none.
  static void tamper(MemoryStore& store, const domain::AuditEntry& entry) {
    MemoryAuditLog& log = store.memoryAuditLog();
    std::lock_guard lock(log.mu_);
    if (const auto it = log.positionById_.find(entry.id); it != log.positionById_.end()) {
      log.chain_[it->second] = entry;
    }
  }
};

}  // namespace certsteward::adapters::memory
