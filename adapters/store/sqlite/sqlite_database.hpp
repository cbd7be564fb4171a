// The SQLite layer under the store adapter: connections with cached prepared statements,
// RAII statements and transactions, and the translation of SQLite errors into domain errors.
// sqlite3.h stays in the .cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

struct sqlite3;
struct sqlite3_stmt;

namespace certsteward::adapters::sqlite {

// Thrown inside the adapter only; `guarded()` turns it into a domain::Error at the port.
class SqliteError : public std::runtime_error {
 public:
  SqliteError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

// One prepared statement borrowed from a connection's cache; reset when it goes away.
class Statement {
 public:
  explicit Statement(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement(Statement&& other) noexcept : stmt_(other.stmt_), next_(other.next_) {
    other.stmt_ = nullptr;
  }

  Statement& bind(std::string_view text);
  Statement& bind(std::int64_t value);
  Statement& bind(int value) { return bind(static_cast<std::int64_t>(value)); }
  Statement& bind(bool value) { return bind(static_cast<std::int64_t>(value ? 1 : 0)); }
  Statement& bind(domain::Timestamp t) { return bind(t.time_since_epoch().count()); }
  Statement& bind(std::nullptr_t);
  template <class T>
  Statement& bind(const std::optional<T>& v) {
    return v ? bind(*v) : bind(nullptr);
  }
  Statement& bind(const std::string& text) { return bind(std::string_view(text)); }
  Statement& bind(const char* text) { return bind(std::string_view(text)); }

  // Advances to the next row: true when there is one. Throws SqliteError.
  bool step();
  // Runs a statement that returns no rows; returns the number of rows changed.
  int run();

  std::string text(int column) const;
  std::int64_t integer(int column) const;
  bool isNull(int column) const;
  std::optional<domain::Timestamp> timestamp(int column) const;

 private:
  sqlite3_stmt* stmt_;
  int next_ = 1;  // the next bind index
};

// One connection to the database file, with its statement cache. Not thread-safe: one user at
// a time (the store hands connections out).
class Connection {
 public:
  // Opens (creating) the file with WAL, a busy timeout, and NORMAL synchronous writes.
  Connection(const std::string& path, std::chrono::milliseconds busyTimeout);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  Statement prepare(std::string_view sql);
  void exec(const std::string& sql);  // runs one or more statements without results
  std::int64_t changes() const;
  bool inTransaction() const;

 private:
  sqlite3* db_ = nullptr;
  std::unordered_map<std::string, sqlite3_stmt*> cache_;
};

// BEGIN IMMEDIATE (takes the write lock up front, so read-modify-write cannot interleave)
// or BEGIN; rolled back unless committed. Inside an open transaction (Database::transact) it is
// a SAVEPOINT of that transaction instead.
class Transaction {
 public:
  Transaction(Connection& connection, bool immediate);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Connection& connection_;
  bool nested_ = false;
  bool done_ = false;
};

// Translates an SQLite error into a domain error: busy/locked/IO -> unavailable, constraint ->
// conflict, corruption and the rest -> internal. The message never contains SQL or values.
domain::Error translate(const SqliteError& error);

// Runs `body`, returning its Result, or the translated error when it throws.
template <class F>
auto guarded(F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const SqliteError& e) {
    return translate(e);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception&) {
    return domain::makeError(domain::ErrorCode::internal, "store error");
  }
}

// The connections of one store: a pool for readers (WAL lets them run beside the writer) and
// one writer, so this process's writers queue on a mutex instead of on SQLite's busy handler.
// Other processes are kept out by SQLite's lock and waited for up to the busy timeout.
class Database {
 public:
  Database(std::string path, int readers, std::chrono::milliseconds busyTimeout);

  class Lease {
   public:
    // kind: a pooled reader, the locked writer, or the connection of this thread's transaction.
    enum class Kind { reader, writer, joined };
    Lease(Database& db, Connection& c, Kind kind) : db_(db), c_(&c), kind_(kind) {}
    ~Lease();
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Connection& operator*() { return *c_; }
    Connection* operator->() { return c_; }

   private:
    Database& db_;
    Connection* c_;
    Kind kind_;
  };

  // Inside transact() on the calling thread, both give the transaction's connection.
  Lease reader();
  Lease writer();
  const std::string& path() const { return path_; }

  // Runs `body` in one BEGIN IMMEDIATE transaction on the writer connection: every reader() and
  // writer() of this thread inside it is that connection, so repositories join it. Commits when
  // `body` succeeds, rolls back otherwise (and when it throws). Nested calls join.
  domain::Status transact(const std::function<domain::Status()>& body);

 private:
  friend class Lease;
  std::string path_;
  std::mutex writerMutex_;
  std::unique_ptr<Connection> writer_;
  std::mutex poolMutex_;
  std::vector<std::unique_ptr<Connection>> idle_;
  std::chrono::milliseconds busyTimeout_;
};

}  // namespace certsteward::adapters::sqlite
