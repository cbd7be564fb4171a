// VACUUM INTO for backups; a checked copy and rename for restores. SQLite's errors become
// domain errors here.
#include "adapters/store/sqlite/sqlite_backup.hpp"

#include <sqlite3.h>

#include <filesystem>
#include <memory>

namespace certsteward::adapters::sqlite {
namespace {

using domain::ErrorCode;
using domain::makeError;

struct Db {
  sqlite3* db = nullptr;
  ~Db() {
    if (db != nullptr) sqlite3_close(db);
  }
};

// Opens read-only (never creating a file); nullptr and `why` when it cannot.
bool openReadOnly(const std::string& path, Db& d, std::string& why) {
  if (sqlite3_open_v2(path.c_str(), &d.db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    why = d.db != nullptr ? sqlite3_errmsg(d.db) : "cannot open";
    return false;
  }
  sqlite3_busy_timeout(d.db, 10000);
  return true;
}

// The single integer a query answers, or nullopt (no row, or an error such as a missing table).
std::optional<std::int64_t> scalar(sqlite3* db, const char* sql, std::int64_t arg = 0,
                                   bool bind = false) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) return std::nullopt;
  std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> guard(stmt, sqlite3_finalize);
  if (bind) sqlite3_bind_int64(stmt, 1, arg);
  if (sqlite3_step(stmt) != SQLITE_ROW) return std::nullopt;
  return sqlite3_column_int64(stmt, 0);
}

}  // namespace

domain::Status backupDatabase(const std::string& source, const std::string& destination) {
  std::error_code ec;
  if (std::filesystem::exists(destination, ec)) {
    return makeError(ErrorCode::failed_precondition,
                     destination + " exists; a backup never overwrites a file");
  }
  if (!std::filesystem::exists(source, ec)) {
    return makeError(ErrorCode::unavailable, "there is no store at " + source);
  }
  Db d;
  std::string why;
  if (!openReadOnly(source, d, why)) {
    return makeError(ErrorCode::unavailable, "cannot open the store " + source + ": " + why);
  }
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(d.db, "VACUUM INTO ?", -1, &stmt, nullptr) != SQLITE_OK) {
    return makeError(ErrorCode::unavailable, std::string("backup: ") + sqlite3_errmsg(d.db));
  }
  std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> guard(stmt, sqlite3_finalize);
  sqlite3_bind_text(stmt, 1, destination.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(stmt) != SQLITE_DONE) {
    const std::string message = sqlite3_errmsg(d.db);
    std::filesystem::remove(destination, ec);
    return makeError(ErrorCode::unavailable, "backup into " + destination + ": " + message);
  }
  return {};
}

domain::Status restoreDatabase(const std::string& backup, const std::string& target,
                               domain::Timestamp now) {
  std::error_code ec;
  {
    Db b;
    std::string why;
    if (!std::filesystem::exists(backup, ec) || !openReadOnly(backup, b, why)) {
      return makeError(ErrorCode::failed_precondition, "cannot read the backup " + backup);
    }
    if (!scalar(b.db, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations") ||
        !scalar(b.db, "SELECT COUNT(*) FROM audit_log")) {
      return makeError(ErrorCode::failed_precondition,
                       backup + " is not a CertSteward store (no schema or audit log)");
    }
  }
  if (std::filesystem::exists(target, ec)) {
    Db t;
    std::string why;
    if (openReadOnly(target, t, why)) {
      const auto leased = scalar(t.db, "SELECT COUNT(*) FROM leader_locks WHERE expires_at > ?",
                                 now.time_since_epoch().count(), true);
      if (leased && *leased > 0) {
        return makeError(ErrorCode::failed_precondition,
                         "a server is using " + target +
                             " (its scheduler lease is current); stop every instance first");
      }
    }
  }
  const std::string staging = target + ".restoring";
  std::filesystem::remove(staging, ec);
  std::filesystem::copy_file(backup, staging, ec);
  if (ec) {
    return makeError(ErrorCode::unavailable, "cannot write " + staging + ": " + ec.message());
  }
  for (const char* suffix : {"-wal", "-shm"})
    std::filesystem::remove(target + suffix, ec);
  std::filesystem::rename(staging, target, ec);
  if (ec) {
    return makeError(ErrorCode::unavailable, "cannot replace " + target + ": " + ec.message());
  }
  return {};
}

}  // namespace certsteward::adapters::sqlite
