// The store adapters every contract suite runs against. Each factory makes a fresh, empty
// store and can tamper with the audit log the way someone with database access could.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include <unistd.h>

#include "adapters/store/memory/memory_audit_log.hpp"
#include "adapters/store/memory/memory_store.hpp"
#include "adapters/store/sqlite/sqlite_audit_log.hpp"
#include "adapters/store/sqlite/sqlite_store.hpp"
#include "ports/store.hpp"

namespace certsteward::testing {

struct MemoryStoreFactory {
  static constexpr const char* kName = "memory";
  std::unique_ptr<ports::Store> make() { return std::make_unique<adapters::memory::MemoryStore>(); }
  static void tamper(ports::Store& store, const domain::AuditEntry& entry) {
    static_cast<adapters::memory::MemoryStore&>(store).memoryAuditLog().tamperForTest(entry);
  }
};

// A fresh SQLite file in its own temporary directory, removed with the factory.
struct SqliteStoreFactory {
  static constexpr const char* kName = "sqlite";
  std::filesystem::path dir;

  SqliteStoreFactory() {
    static std::atomic<int> counter{0};
    dir = std::filesystem::temp_directory_path() /
          ("certsteward-contract-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(dir);
  }
  ~SqliteStoreFactory() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  SqliteStoreFactory(const SqliteStoreFactory&) = delete;
  SqliteStoreFactory& operator=(const SqliteStoreFactory&) = delete;

  std::unique_ptr<ports::Store> make() {
    auto store = adapters::sqlite::SqliteStore::open({(dir / "store.db").string()});
    if (!store) throw std::runtime_error(store.error().message);
    return std::move(*store);
  }
  static void tamper(ports::Store& store, const domain::AuditEntry& entry) {
    static_cast<adapters::sqlite::SqliteStore&>(store).sqliteAuditLog().tamperForTest(entry);
  }
};

// Every adapter; MongoDB joins this list.
#define CERTSTEWARD_STORE_FACTORIES \
  ::certsteward::testing::MemoryStoreFactory, ::certsteward::testing::SqliteStoreFactory

}  // namespace certsteward::testing
