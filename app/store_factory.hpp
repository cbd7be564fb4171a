// Opens the store that `store.url` names: memory:, sqlite://<path>, mongodb://...,
// postgresql://... (issues #3, #30).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include <certsteward/domain/result.hpp>
#include <certsteward/ports/store.hpp>

namespace certsteward::app {

// The file path of a sqlite:// URL ("sqlite:///var/lib/x.db" -> "/var/lib/x.db",
// "sqlite://./data/x.db" -> "./data/x.db"); invalid_argument when empty.
domain::Result<std::string> sqlitePath(const std::string& url);

// The PostgreSQL store's pool (store.pool_size, store.statement_timeout); the others ignore it.
struct StoreOptions {
  std::size_t pool_size = 8;
  std::chrono::milliseconds statement_timeout{10'000};
};

// Opens the store, creating a SQLite file's directory when missing. Errors name store.url and
// never hold its password.
domain::Result<ports::StorePtr> openStore(const std::string& url, const StoreOptions& options = {});

// Whether `url` names a PostgreSQL store (postgresql:// or postgres://).
bool isPostgresUrl(const std::string& url);

// `certsteward backup --to FILE`: a consistent copy of a SQLite store while it runs.
// failed_precondition for other stores (MongoDB: mongodump; PostgreSQL: pg_dump) or an
// existing FILE.
domain::Status backupStore(const std::string& url, const std::string& to);

// `certsteward restore --from FILE`: the SQLite store replaced by a backup; refused while a
// server uses it, or when FILE is not a CertSteward store.
domain::Status restoreStore(const std::string& url, const std::string& from);

// The stores of `certsteward migrate`, checked before either is opened: invalid_argument for
// memory: or the same URL twice; not_found for a SQLite source file that does not exist.
domain::Status checkMigrationStores(const std::string& from, const std::string& to);

}  // namespace certsteward::app
