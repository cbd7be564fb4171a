// The store adapters every contract suite runs against. Each factory makes a fresh, empty
// store and can tamper with the audit log the way someone with database access could.
#pragma once

#include <memory>

#include "adapters/store/memory/memory_audit_log.hpp"
#include "adapters/store/memory/memory_store.hpp"
#include "ports/store.hpp"

namespace certsteward::testing {

struct MemoryStoreFactory {
  static constexpr const char* kName = "memory";
  std::unique_ptr<ports::Store> make() { return std::make_unique<adapters::memory::MemoryStore>(); }
  static void tamper(ports::Store& store, const domain::AuditEntry& entry) {
    static_cast<adapters::memory::MemoryStore&>(store).memoryAuditLog().tamperForTest(entry);
  }
};

// Every adapter; SQLite and MongoDB join this list.
#define CERTSTEWARD_STORE_FACTORIES ::certsteward::testing::MemoryStoreFactory

}  // namespace certsteward::testing
