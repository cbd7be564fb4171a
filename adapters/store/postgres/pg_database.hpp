// The libpq layer under the PostgreSQL store adapter: a bounded pool of connections made from the
// store URL (libpq's URL or keyword form, multi-host with target_session_attrs included),
// statements with text parameters, transactions, and the translation of every libpq error into
// the canonical domain codes. Included only by the adapter's own .cpp files and its tests.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
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

#include <certsteward/adapters/store/postgres/pg_options.hpp>
#include <certsteward/domain/result.hpp>

struct pg_conn;
struct pg_result;

namespace certsteward::adapters::postgres {

// A failed libpq call: the SQLSTATE ("" when the connection itself failed) and the server's
// primary message (never the statement, its parameters or the DETAIL line, which can hold
// values).
class PgError : public std::runtime_error {
 public:
  PgError(std::string sqlstate, const std::string& message)
      : std::runtime_error(message), sqlstate_(std::move(sqlstate)) {}
  const std::string& sqlstate() const noexcept { return sqlstate_; }

 private:
  std::string sqlstate_;
};

// The rows of one statement (owns the PGresult).
class Rows {
 public:
  explicit Rows(pg_result* result) : result_(result) {}
  ~Rows();
  Rows(Rows&& o) noexcept : result_(o.result_) { o.result_ = nullptr; }
  Rows& operator=(Rows&& o) noexcept;
  Rows(const Rows&) = delete;
  Rows& operator=(const Rows&) = delete;

  int size() const;
  bool empty() const { return size() == 0; }
  // The value at (row, column) as text; nullopt for NULL.
  std::optional<std::string> get(int row, int column) const;
  std::string text(int row, int column) const { return get(row, column).value_or(""); }
  std::int64_t integer(int row, int column) const;
  // Rows changed by an INSERT, UPDATE or DELETE.
  std::int64_t affected() const;

 private:
  pg_result* result_;
};

using Param = std::optional<std::string>;  // nullopt: SQL NULL

// The reason of a domain error that transact() answers by running the body again (a
// serialization failure or a deadlock).
inline constexpr const char* kTransientTransaction = "TRANSIENT_TRANSACTION";

class PgDatabase {
 public:
  // Checks the URL and opens one connection (a server that cannot be reached is `unavailable`,
  // saying why, without the password).
  static domain::Result<std::unique_ptr<PgDatabase>> open(const std::string& url,
                                                          PgOptions options = {});
  ~PgDatabase();
  PgDatabase(const PgDatabase&) = delete;
  PgDatabase& operator=(const PgDatabase&) = delete;

  // Runs one statement ($1..$n take `params`); inside transact() on this thread, in its
  // transaction. Throws PgError.
  Rows exec(std::string_view sql, const std::vector<Param>& params = {});
  // Runs several statements without parameters (a migration); in the thread's transaction if
  // any. Throws PgError.
  void script(std::string_view sql);

  // Runs `body` as one transaction (READ COMMITTED: each statement sees what committed before
  // it). Each guard is a transaction-scoped advisory lock taken first, in a fixed order, so two
  // transactions naming the same guard run one after the other. A serialization failure or a
  // deadlock rolls back and runs the body again (at most options.transaction_attempts times);
  // any other error rolls back and is returned, and so does a body that returns ok after one of
  // its statements failed. A transact() inside `body` joins it, taking the guards it adds.
  domain::Status transact(const std::vector<std::string>& guards,
                          const std::function<domain::Status()>& body);

  // Runs `body` in one read-only REPEATABLE READ transaction: its statements read one snapshot
  // (a page's total and its items agree). Inside transact() it joins that transaction instead.
  domain::Status snapshot(const std::function<domain::Status()>& body);

  // Runs one statement whose failure leaves the thread's transaction usable: under a SAVEPOINT,
  // rolled back to when it fails (a unique violation the caller answers as a conflict). Outside
  // a transaction it is exec(). Throws PgError.
  Rows execRecoverable(std::string_view sql, const std::vector<Param>& params = {});

  // Whether the calling thread is inside transact() or snapshot() of this database.
  bool inTransaction() const;

  // Whether the server this pool reaches accepts writes (not in recovery: the primary).
  domain::Result<bool> isPrimary();

 private:
  PgDatabase(std::string url, PgOptions options);
  // A connection of the pool, connected (made or re-made as needed); throws PgError.
  pg_conn* acquire();
  // Back to the pool; a broken one is closed, and the next acquire makes a new one (after a
  // failover: to the server the URL's hosts now name as the primary).
  void release(pg_conn* conn);
  pg_conn* connect();
  // Runs `use` on the thread's transaction connection, or on one of the pool for this call.
  template <class F>
  auto onConnection(F&& use) -> decltype(use(static_cast<pg_conn*>(nullptr)));
  Rows run(pg_conn* conn, std::string_view sql, const std::vector<Param>& params);
  // transact() and snapshot(): `begin` opens the transaction.
  domain::Status runTransaction(const char* begin, const std::vector<std::string>& guards,
                                const std::function<domain::Status()>& body);
  void runScript(pg_conn* conn, std::string_view sql);
  // runScript, answering the last statement's command tag ("COMMIT", "ROLLBACK").
  std::string runScriptResult(pg_conn* conn, std::string_view sql);
  // The name `sql` is prepared under on `conn` (preparing it on first use), or nullptr when the
  // connection already holds kPreparedPerConnection statements. Throws PgError.
  const std::string* preparedName(pg_conn* conn, const std::string& sql, std::size_t parameters);
  static constexpr std::size_t kPreparedPerConnection = 256;

  std::string url_;
  PgOptions options_;
  std::mutex mutex_;
  std::condition_variable freed_;
  std::vector<pg_conn*> idle_;
  std::size_t open_ = 0;  // idle and in use
  // The statements prepared on each open connection (sql -> name), under mutex_.
  std::unordered_map<pg_conn*, std::unordered_map<std::string, std::string>> prepared_;
  std::atomic<std::uint64_t> nextPrepared_{0};
};

// Translates a PgError: the connection failing, the server shutting down, read-only or out of
// connections, a statement or lock timeout -> unavailable; a serialization failure or deadlock
// -> unavailable with kTransientTransaction; a unique violation -> conflict; a foreign key
// violation -> failed_precondition; a check violation or a value the server cannot take ->
// invalid_argument; the rest (a bug, a missing schema) -> internal. The message is fixed words
// for the kind and the SQLSTATE: the server's text can hold values and internals.
domain::Error translate(const PgError& error);

template <class F>
auto guarded(F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const PgError& e) {
    return translate(e);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception&) {
    return domain::makeError(domain::ErrorCode::internal, "store error");
  }
}

}  // namespace certsteward::adapters::postgres
