// The store adapters every contract suite runs against. Each factory makes a fresh, empty
// store and can tamper with the audit log the way someone with database access could, through
// the store's test-only tamper hook (adapters/store/*/*_audit_log_tamper.hpp).
#pragma once

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include <unistd.h>

#include <certsteward/adapters/store/memory/memory_audit_log_tamper.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_audit_log_tamper.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_store.hpp>
#if defined(CERTSTEWARD_CONTRACT_MONGO)
#include <cstdlib>

#include <certsteward/adapters/store/mongo/mongo_audit_log_tamper.hpp>
#include <certsteward/adapters/store/mongo/mongo_store.hpp>
#endif
#if defined(CERTSTEWARD_CONTRACT_POSTGRES)
#include <certsteward/adapters/store/postgres/pg_audit_log_tamper.hpp>
#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/adapters/store/postgres/pg_store.hpp>
#include "support/postgres_server.hpp"
#endif
#include <certsteward/ports/store.hpp>

namespace certsteward::testing {

// Where each live store of a factory keeps its data (a file, a database URI), for the tamper
// hook, which the fixture calls without the factory.
class StoreLocations {
 public:
  void remember(const ports::Store& store, std::string where) { where_[&store] = std::move(where); }
  void forget(const ports::Store& store) { where_.erase(&store); }
  const std::string& of(const ports::Store& store) const {
    const auto it = where_.find(&store);
    if (it == where_.end()) throw std::logic_error("tamper: a store this factory did not make");
    return it->second;
  }

 private:
  std::map<const ports::Store*, std::string> where_;
};

struct MemoryStoreFactory {
  static constexpr const char* kName = "memory";
  std::unique_ptr<ports::Store> make() { return std::make_unique<adapters::memory::MemoryStore>(); }
  static void tamper(ports::Store& store, const domain::AuditEntry& entry) {
    adapters::memory::MemoryAuditLogTamper::tamper(
        static_cast<adapters::memory::MemoryStore&>(store), entry);
  }
  void cleanup(ports::Store&) {}
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
    const std::string path = (dir / "store.db").string();
    auto store = adapters::sqlite::SqliteStore::open({path});
    if (!store) throw std::runtime_error(store.error().message);
    locations().remember(**store, path);
    return std::move(*store);
  }
  // A connection of its own to the store's file rewrites the row.
  static void tamper(ports::Store& store, const domain::AuditEntry& entry) {
    adapters::sqlite::SqliteAuditLogTamper::tamper(locations().of(store), entry);
  }
  void cleanup(ports::Store& store) { locations().forget(store); }

 private:
  static StoreLocations& locations() {
    static StoreLocations made;
    return made;
  }
};

#if defined(CERTSTEWARD_CONTRACT_MONGO)
// A fresh database on the server of CERTSTEWARD_TEST_MONGODB_URI, dropped afterwards.
struct MongoStoreFactory {
  static constexpr const char* kName = "mongo";

  // The URI with its database path replaced by `db` (query options kept).
  static std::string uriWithDatabase(const std::string& uri, const std::string& db) {
    const auto hosts = uri.find("://");
    const auto slash = uri.find('/', hosts == std::string::npos ? 0 : hosts + 3);
    const auto query = uri.find('?');
    const std::string base = uri.substr(0, std::min(slash, query));
    const std::string options = query == std::string::npos ? "" : uri.substr(query);
    return base + "/" + db + options;
  }

  std::unique_ptr<ports::Store> make() {
    static std::atomic<int> counter{0};
    const char* uri = std::getenv("CERTSTEWARD_TEST_MONGODB_URI");
    if (uri == nullptr) throw std::runtime_error("CERTSTEWARD_TEST_MONGODB_URI is not set");
    const std::string db =
        "certsteward_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    const std::string storeUri = uriWithDatabase(uri, db);
    auto store = adapters::mongo::MongoStore::open(storeUri);
    if (!store) throw std::runtime_error(store.error().message);
    locations().remember(**store, storeUri);
    return std::move(*store);
  }
  // A client of its own on the store's database replaces the document.
  static void tamper(ports::Store& store, const domain::AuditEntry& entry) {
    adapters::mongo::MongoAuditLogTamper::tamper(locations().of(store), entry);
  }
  void cleanup(ports::Store& store) {
    locations().forget(store);
    (void)static_cast<adapters::mongo::MongoStore&>(store).dropDatabaseForTest();
  }

 private:
  static StoreLocations& locations() {
    static StoreLocations made;
    return made;
  }
};

// The MongoDB contract executable runs the same suites against MongoDB only.
#define CERTSTEWARD_STORE_FACTORIES ::certsteward::testing::MongoStoreFactory
#elif defined(CERTSTEWARD_CONTRACT_POSTGRES)
// A fresh schema of its own on the process's PostgreSQL (started by the harness on first use),
// made the connection's search_path through the URL; dropped afterwards. A schema is made and
// migrated in a few milliseconds, a database in a few hundred.
struct PostgresStoreFactory {
  static constexpr const char* kName = "postgres";

  static adapters::postgres::PgDatabase& admin() {
    static std::unique_ptr<adapters::postgres::PgDatabase> db = [] {
      auto& server = sharedPostgres();
      if (!server.available()) throw std::runtime_error("PostgreSQL: " + server.reason());
      auto opened = adapters::postgres::PgDatabase::open(server.url());
      if (!opened) throw std::runtime_error(opened.error().message);
      return std::move(*opened);
    }();
    return *db;
  }

  std::unique_ptr<ports::Store> make() {
    static std::atomic<int> counter{0};
    const std::string schema =
        "contract_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    admin().exec("CREATE SCHEMA " + schema);
    const std::string url = sharedPostgres().url() + "?options=-csearch_path%3D" + schema;
    auto store = adapters::postgres::PgStore::open(url);
    if (!store) throw std::runtime_error(store.error().message);
    locations().remember(**store, url);
    schemas()[store->get()] = schema;
    return std::move(*store);
  }
  // Another store on the schema of `store` (a second instance of the server); the schema stays
  // with `store`.
  std::unique_ptr<ports::Store> makeSharing(const ports::Store& store) {
    auto other = adapters::postgres::PgStore::open(locations().of(store));
    if (!other) throw std::runtime_error(other.error().message);
    return std::move(*other);
  }
  // A connection of its own rewrites the row.
  static void tamper(ports::Store& store, const domain::AuditEntry& entry) {
    adapters::postgres::PgAuditLogTamper::tamper(locations().of(store), entry);
  }
  void cleanup(ports::Store& store) {
    locations().forget(store);
    const auto it = schemas().find(&store);
    if (it == schemas().end()) return;
    admin().exec("DROP SCHEMA " + it->second + " CASCADE");
    schemas().erase(it);
  }

 private:
  static StoreLocations& locations() {
    static StoreLocations made;
    return made;
  }
  static std::map<const ports::Store*, std::string>& schemas() {
    static std::map<const ports::Store*, std::string> made;
    return made;
  }
};

// The PostgreSQL contract executable runs the same suites against PostgreSQL only.
#define CERTSTEWARD_STORE_FACTORIES ::certsteward::testing::PostgresStoreFactory
#else
// Every adapter of the main contract executable.
#define CERTSTEWARD_STORE_FACTORIES \
  ::certsteward::testing::MemoryStoreFactory, ::certsteward::testing::SqliteStoreFactory
#endif

}  // namespace certsteward::testing
