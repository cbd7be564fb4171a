// The factory the contract suites make stores with: here the memory store, as a team would wrap
// its own adapter (testing/contract/store_fixture.hpp says what a factory provides).
#pragma once

#include <certsteward/adapters/store/memory/memory_audit_log_tamper.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>

#include <memory>

struct TeamStoreFactory {
  static constexpr const char* kName = "team store";
  std::unique_ptr<certsteward::ports::Store> make() {
    return std::make_unique<certsteward::adapters::memory::MemoryStore>();
  }
  void cleanup(certsteward::ports::Store&) {}
  static void tamper(certsteward::ports::Store& store,
                     const certsteward::domain::AuditEntry& entry) {
    certsteward::adapters::memory::MemoryAuditLogTamper::tamper(
        static_cast<certsteward::adapters::memory::MemoryStore&>(store), entry);
  }
};

#define CERTSTEWARD_STORE_FACTORIES TeamStoreFactory
