// Store selection by URL scheme.
#include <certsteward/app/store_factory.hpp>

#include <filesystem>

#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/adapters/store/mongo/mongo_store.hpp>
#include <certsteward/adapters/store/postgres/pg_store.hpp>
#include <certsteward/adapters/store/sqlite/private_files.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_backup.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_store.hpp>

namespace certsteward::app {

domain::Result<std::string> sqlitePath(const std::string& url) {
  constexpr std::string_view kScheme = "sqlite://";
  if (!url.starts_with(kScheme) || url.size() == kScheme.size()) {
    return domain::makeError(domain::ErrorCode::invalid_argument,
                             "configuration key store.url: expected sqlite://<path to file>");
  }
  return url.substr(kScheme.size());
}

bool isPostgresUrl(const std::string& url) {
  return url.starts_with("postgresql://") || url.starts_with("postgres://");
}

domain::Result<ports::StorePtr> openStore(const std::string& url, const StoreOptions& options) {
  if (url == "memory:") return ports::StorePtr(std::make_unique<adapters::memory::MemoryStore>());
  if (url.starts_with("sqlite:")) {
    auto path = sqlitePath(url);
    if (!path) return path.error();
    // Directories made here are 0700, the store's files 0600, whatever the umask.
    if (auto made = adapters::sqlite::createPrivateDirectories(
            std::filesystem::path(*path).parent_path().string());
        !made) {
      return domain::makeError(made.error().code, "store.url " + url + ": " + made.error().message);
    }
    auto store = adapters::sqlite::SqliteStore::open({*path});
    if (!store) {
      return domain::makeError(store.error().code,
                               "store.url " + url + ": " + store.error().message);
    }
    return ports::StorePtr(std::move(*store));
  }
  if (url.starts_with("mongodb://") || url.starts_with("mongodb+srv://")) {
    auto store = adapters::mongo::MongoStore::open(url);
    if (!store) {
      // Never echo the URI: it may carry credentials.
      return domain::makeError(store.error().code, "store.url (mongodb): " + store.error().message);
    }
    return ports::StorePtr(std::move(*store));
  }
  if (isPostgresUrl(url)) {
    adapters::postgres::PgOptions pg;
    pg.pool_size = options.pool_size;
    pg.statement_timeout = options.statement_timeout;
    auto store = adapters::postgres::PgStore::open(url, pg);
    if (!store) {
      // Never echo the URL: it may carry the password.
      return domain::makeError(store.error().code,
                               "store.url (postgresql): " + store.error().message);
    }
    return ports::StorePtr(std::move(*store));
  }
  return domain::makeError(domain::ErrorCode::invalid_argument,
                           "configuration key store.url: expected memory:, sqlite://<path>, "
                           "mongodb://<hosts>/<db> or postgresql://<user>@<hosts>/<db>");
}

namespace {

domain::Result<std::string> fileOf(const std::string& url, const char* command) {
  if (!url.starts_with("sqlite:")) {
    return domain::makeError(
        domain::ErrorCode::failed_precondition,
        std::string(command) +
            " copies SQLite stores; for MongoDB use mongodump and mongorestore on the replica "
            "set, for PostgreSQL pg_dump and pg_restore on the primary (docs/operations.md)");
  }
  return sqlitePath(url);
}

}  // namespace

domain::Status backupStore(const std::string& url, const std::string& to) {
  auto path = fileOf(url, "backup");
  if (!path) return path.error();
  return adapters::sqlite::backupDatabase(*path, to);
}

domain::Status restoreStore(const std::string& url, const std::string& from) {
  auto path = fileOf(url, "restore");
  if (!path) return path.error();
  return adapters::sqlite::restoreDatabase(
      from, *path,
      std::chrono::time_point_cast<domain::Duration>(std::chrono::system_clock::now()));
}

domain::Status checkMigrationStores(const std::string& from, const std::string& to) {
  if (from == "memory:" || to == "memory:") {
    return domain::makeError(domain::ErrorCode::invalid_argument,
                             "a memory: store holds nothing to migrate from or to");
  }
  if (from == to) {
    return domain::makeError(domain::ErrorCode::invalid_argument,
                             "--from and --to name the same store");
  }
  if (from.starts_with("sqlite:")) {
    auto path = sqlitePath(from);
    if (!path) return path.error();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(*path, ec)) {
      return domain::makeError(domain::ErrorCode::not_found,
                               "--from: there is no SQLite store at " + *path);
    }
  }
  return {};
}

}  // namespace certsteward::app
