// VACUUM INTO for backups; a checked copy and rename for restores. SQLite's errors become
// domain errors here.
#include <certsteward/adapters/store/sqlite/sqlite_backup.hpp>

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <memory>

#include <certsteward/adapters/store/sqlite/private_files.hpp>

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

// Copies the bytes of `from` (opened without following a link) into the existing file `to`.
domain::Status copyInto(const std::string& from, const std::string& to) {
  const int in = ::open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (in < 0) return makeError(ErrorCode::unavailable, "cannot read " + from);
  const int out = ::open(to.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
  if (out < 0) {
    ::close(in);
    return makeError(ErrorCode::unavailable, "cannot write " + to);
  }
  char buffer[65536];
  bool ok = true;
  for (;;) {
    const auto n = ::read(in, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ok = n == 0;
      break;
    }
    for (ssize_t done = 0; ok && done < n;) {
      const auto w = ::write(out, buffer + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      ok = w > 0;
      done += w > 0 ? w : 0;
    }
    if (!ok) break;
  }
  ok = ok && ::fsync(out) == 0;
  ::close(in);
  ::close(out);
  if (!ok) return makeError(ErrorCode::unavailable, "cannot copy " + from + " into " + to);
  return {};
}

}  // namespace

domain::Status backupDatabase(const std::string& source, const std::string& destination) {
  std::error_code ec;
  if (!std::filesystem::exists(source, ec)) {
    return makeError(ErrorCode::unavailable, "there is no store at " + source);
  }
  Db d;
  std::string why;
  if (!openReadOnly(source, d, why)) {
    return makeError(ErrorCode::unavailable, "cannot open the store " + source + ": " + why);
  }
  // The file is ours before SQLite writes it: new (O_EXCL, never through a link), 0600; VACUUM
  // INTO fills an empty file, and afterwards it must still be the file created here.
  int fd = -1;
  auto created = createPrivateFile(destination, &fd);
  if (!created) return created.error();
  // SQLite writes through this process's descriptor of the new file (/proc/self/fd/N), never by
  // the path again: whatever is put at the path meanwhile, the backup lands in the file made here.
  struct CloseLater {
    int fd;
    ~CloseLater() { ::close(fd); }
  } closeLater{fd};
  const std::string through = "/proc/self/fd/" + std::to_string(fd);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(d.db, "VACUUM INTO ?", -1, &stmt, nullptr) != SQLITE_OK) {
    const std::string message = sqlite3_errmsg(d.db);
    if (regularFileIdentity(destination) == *created) std::filesystem::remove(destination, ec);
    return makeError(ErrorCode::unavailable, "backup: " + message);
  }
  std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> guard(stmt, sqlite3_finalize);
  sqlite3_bind_text(stmt, 1, through.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(stmt) != SQLITE_DONE) {
    const std::string message = sqlite3_errmsg(d.db);
    if (regularFileIdentity(destination) == *created) std::filesystem::remove(destination, ec);
    return makeError(ErrorCode::unavailable, "backup into " + destination + ": " + message);
  }
  unsigned mode = 0;
  if (regularFileIdentity(destination, &mode) != *created || mode != 0600) {
    return makeError(ErrorCode::unavailable,
                     destination +
                         " was replaced while the backup was written; it is not the "
                         "backup: take it again into a directory only you can write");
  }
  return {};
}

domain::Status restoreDatabase(const std::string& backup, const std::string& target,
                               domain::Timestamp now) {
  std::error_code ec;
  // The backup is held to what `backup` writes: a regular file (not a link), 0600.
  unsigned mode = 0;
  if (!std::filesystem::exists(backup, ec) && !std::filesystem::is_symlink(backup, ec)) {
    return makeError(ErrorCode::failed_precondition, "cannot read the backup " + backup);
  }
  if (!regularFileIdentity(backup, &mode)) {
    return makeError(ErrorCode::failed_precondition,
                     backup + " is not a regular file (a symbolic link is never followed)");
  }
  if ((mode & 077) != 0) {
    return makeError(ErrorCode::failed_precondition,
                     backup + " can be read or changed by other users (mode " +
                         std::to_string(mode >> 6 & 7) + std::to_string(mode >> 3 & 7) +
                         std::to_string(mode & 7) + "); chmod 600 it if it is yours");
  }
  {
    Db b;
    std::string why;
    if (!openReadOnly(backup, b, why)) {
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
  std::filesystem::remove(staging, ec);  // a leftover (a link is removed, never followed)
  if (auto created = createPrivateFile(staging); !created) return created.error();
  if (auto copied = copyInto(backup, staging); !copied) {
    std::filesystem::remove(staging, ec);
    return copied;
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
