// The libpq layer: the pool, statements, transactions and the error translation.
#include <certsteward/adapters/store/postgres/pg_database.hpp>

#include <libpq-fe.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <thread>

namespace certsteward::adapters::postgres {
namespace {

// The transaction of this thread, if any: statements and nested transact() calls join it. It
// remembers the guards it holds and the first statement error inside it (a body that swallowed
// an error must not commit: the server would answer COMMIT with a rollback).
struct Current {
  const PgDatabase* db;
  PGconn* conn;
  std::vector<std::string> held;
  std::optional<PgError> failure;
  // The BEGIN not sent yet: it goes out with the guards and the body's first statement, in one
  // round trip. A body that runs no statement begins (and commits) nothing.
  std::optional<std::string> pendingBegin;
  bool begun = false;  // the server answered the BEGIN: statements from here on are in it
};
thread_local Current* tCurrent = nullptr;

// Makes `current` the thread's transaction for a scope, and puts back the one before (another
// database's) at its end.
class CurrentScope {
 public:
  explicit CurrentScope(Current* current) : saved_(tCurrent) { tCurrent = current; }
  ~CurrentScope() { tCurrent = saved_; }
  CurrentScope(const CurrentScope&) = delete;
  CurrentScope& operator=(const CurrentScope&) = delete;

 private:
  Current* saved_;
};

bool isTransient(const PgError& e) {
  return e.sqlstate() == "40001" || e.sqlstate() == "40P01";
}

constexpr const char* kLockGuard = "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))";

// libpq's message on one line, without its trailing newline.
std::string oneLine(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// Whether an idle connection is still good: nothing may have arrived on it. A server that shut
// down or restarted sent its FATAL message and closed it (readable); one that crashed closed it.
bool stillOpen(PGconn* conn) {
  if (PQstatus(conn) != CONNECTION_OK) return false;
  char byte = 0;
  const ssize_t n = ::recv(PQsocket(conn), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

std::string field(const PGresult* r, int code) {
  const char* v = r == nullptr ? nullptr : PQresultErrorField(r, code);
  return v == nullptr ? std::string() : std::string(v);
}

// The PgError of a failed statement (`r` freed): its SQLSTATE and primary message, or the
// connection's message when the server sent none. Remembered as the thread's transaction's
// first failure when it ran in it.
PgError errorOf(PGconn* conn, PGresult* r) {
  std::string state = field(r, PG_DIAG_SQLSTATE);
  std::string message = field(r, PG_DIAG_MESSAGE_PRIMARY);
  PQclear(r);
  if (message.empty()) message = oneLine(PQerrorMessage(conn));
  if (state.empty() && PQstatus(conn) != CONNECTION_OK) state = "08006";
  PgError error(state, message);
  if (tCurrent != nullptr && tCurrent->conn == conn && !tCurrent->failure) {
    tCurrent->failure = error;
  }
  return error;
}

[[noreturn]] void failed(PGconn* conn, PGresult* r) {
  throw errorOf(conn, r);
}

bool succeeded(PGresult* r) {
  const auto status = PQresultStatus(r);
  return r != nullptr && (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK);
}

// Sends `current`'s BEGIN, its guards' locks and the first statement of its body in one
// pipeline — one round trip instead of two or more — and answers that statement's result.
// Throws the first failure among them (what follows a failure is not run).
Rows openWith(PGconn* conn, Current& current, const std::string* prepared,
              const std::string& statement, const std::vector<const char*>& values) {
  // Whatever happens from here, the BEGIN is not sent again: a statement after a failure here
  // is refused (run() checks `begun`) instead of running outside the transaction.
  const std::string begin = *current.pendingBegin;
  current.pendingBegin.reset();
  if (PQenterPipelineMode(conn) != 1) failed(conn, nullptr);
  const auto n = static_cast<int>(values.size());
  int sent = 0;
  bool ok = PQsendQueryParams(conn, begin.c_str(), 0, nullptr, nullptr, nullptr, nullptr, 0) == 1;
  ++sent;
  for (const auto& guard : current.held) {
    const char* value = guard.c_str();
    ok = ok && PQsendQueryParams(conn, kLockGuard, 1, nullptr, &value, nullptr, nullptr, 0) == 1;
    ++sent;
  }
  ok = ok && (prepared != nullptr ? PQsendQueryPrepared(conn, prepared->c_str(), n, values.data(),
                                                        nullptr, nullptr, 0)
                                  : PQsendQueryParams(conn, statement.c_str(), n, nullptr,
                                                      values.data(), nullptr, nullptr, 0)) == 1;
  ++sent;
  ok = ok && PQpipelineSync(conn) == 1;
  // The connection broke: it stays in pipeline mode, and release() closes it.
  if (!ok) failed(conn, nullptr);
  std::optional<PgError> error;
  PGresult* answer = nullptr;
  for (int i = 0; i < sent; ++i) {
    // Each statement's result, then NULL; one that followed a failure is PIPELINE_ABORTED.
    for (PGresult* r; (r = PQgetResult(conn)) != nullptr;) {
      const auto status = PQresultStatus(r);
      if (i == 0 && status == PGRES_COMMAND_OK) current.begun = true;
      if (i == sent - 1 && answer == nullptr && succeeded(r)) {
        answer = r;
      } else if (!error && status != PGRES_PIPELINE_ABORTED && !succeeded(r)) {
        error = errorOf(conn, r);  // the first failure, whatever its kind
      } else {
        PQclear(r);
      }
    }
  }
  bool synced = false;
  for (int i = 0; i < 3 && !synced; ++i) {  // the sync point (no NULL follows it)
    PGresult* r = PQgetResult(conn);
    synced = r != nullptr && PQresultStatus(r) == PGRES_PIPELINE_SYNC;
    if (r != nullptr && !synced && !error && !succeeded(r)) {
      error = errorOf(conn, r);
    } else {
      PQclear(r);
    }
  }
  if ((!synced || PQexitPipelineMode(conn) != 1) && !error) error = errorOf(conn, nullptr);
  if (error || answer == nullptr) {
    PQclear(answer);
    if (!error) error = errorOf(conn, nullptr);
    throw *error;
  }
  return Rows(answer);
}

}  // namespace

Rows::~Rows() {
  if (result_ != nullptr) PQclear(result_);
}

Rows& Rows::operator=(Rows&& o) noexcept {
  std::swap(result_, o.result_);
  return *this;
}

int Rows::size() const {
  return result_ == nullptr ? 0 : PQntuples(result_);
}

std::optional<std::string> Rows::get(int row, int column) const {
  if (result_ == nullptr || row >= PQntuples(result_) || column >= PQnfields(result_) ||
      PQgetisnull(result_, row, column) != 0) {
    return std::nullopt;
  }
  return std::string(PQgetvalue(result_, row, column),
                     static_cast<std::size_t>(PQgetlength(result_, row, column)));
}

std::int64_t Rows::integer(int row, int column) const {
  const auto v = get(row, column);
  if (!v || v->empty()) return 0;
  if (*v == "t") return 1;
  if (*v == "f") return 0;
  try {
    return std::stoll(*v);
  } catch (const std::exception&) {
    throw PgError("XX001", "not an integer in a result column");
  }
}

std::int64_t Rows::affected() const {
  const char* n = result_ == nullptr ? nullptr : PQcmdTuples(result_);
  return n == nullptr || *n == '\0' ? 0 : std::stoll(n);
}

domain::Result<std::unique_ptr<PgDatabase>> PgDatabase::open(const std::string& url,
                                                             PgOptions options) {
  char* error = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(url.c_str(), &error);
  if (parsed == nullptr) {
    // libpq's reason quotes the part it could not read, which may be the password.
    PQfreemem(error);
    return domain::makeError(domain::ErrorCode::invalid_argument,
                             "store.url is not a PostgreSQL connection string (postgresql://user@"
                             "host:port/database?..., or libpq's key=value form)");
  }
  PQconninfoFree(parsed);
  options.pool_size = std::max<std::size_t>(1, options.pool_size);
  options.transaction_attempts = std::max(1, options.transaction_attempts);
  std::unique_ptr<PgDatabase> db(new PgDatabase(url, options));
  try {
    db->release(db->acquire());
  } catch (const PgError& e) {
    // At start the operator needs libpq's reason (host, port, user; never the password).
    auto translated = translate(e);
    translated.message += ": " + std::string(e.what());
    return translated;
  }
  return db;
}

PgDatabase::PgDatabase(std::string url, PgOptions options)
    : url_(std::move(url)), options_(options) {}

PgDatabase::~PgDatabase() {
  const std::lock_guard lock(mutex_);
  for (PGconn* c : idle_)
    PQfinish(c);
  idle_.clear();
  prepared_.clear();
}

PGconn* PgDatabase::connect() {
  // The URL's own settings come last and win over these defaults.
  // Keepalives and a TCP user timeout: a server that vanished without a reset (a host lost, a
  // partition) is noticed in about half a minute instead of the kernel's quarter of an hour.
  const std::string timeout = std::to_string(options_.connect_timeout_seconds);
  const char* keys[] = {"connect_timeout",
                        "application_name",
                        "keepalives",
                        "keepalives_idle",
                        "keepalives_interval",
                        "keepalives_count",
                        "tcp_user_timeout",
                        "dbname",
                        nullptr};
  const char* values[] = {timeout.c_str(), "certsteward", "1",    "15", "5", "3",
                          "30000",         url_.c_str(),  nullptr};
  PGconn* conn = PQconnectdbParams(keys, values, 1);
  if (conn == nullptr) throw PgError("53200", "out of memory for a database connection");
  if (PQstatus(conn) != CONNECTION_OK) {
    const std::string why = oneLine(PQerrorMessage(conn));
    PQfinish(conn);
    throw PgError("08001", "cannot connect to the database: " + why);
  }
  // Notices (a table that did not exist, a server about to close the connection) are not
  // errors, and libpq would print them on stderr.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  try {
    run(conn, "SET statement_timeout = " + std::to_string(options_.statement_timeout.count()), {});
  } catch (...) {
    PQfinish(conn);
    throw;
  }
  return conn;
}

PGconn* PgDatabase::acquire() {
  std::unique_lock lock(mutex_);
  for (;;) {
    if (!freed_.wait_for(lock, options_.pool_wait,
                         [&] { return !idle_.empty() || open_ < options_.pool_size; })) {
      throw PgError("53300", "no free database connection within " +
                                 std::to_string(options_.pool_wait.count()) + " ms");
    }
    if (!idle_.empty()) {
      PGconn* conn = idle_.back();
      idle_.pop_back();
      // A server that restarted or failed over closed it meanwhile: a new connection is made
      // instead.
      if (!stillOpen(conn)) {
        prepared_.erase(conn);
        PQfinish(conn);
        --open_;
        continue;
      }
      return conn;
    }
    ++open_;
    lock.unlock();
    try {
      return connect();
    } catch (...) {
      lock.lock();
      --open_;
      freed_.notify_one();
      throw;
    }
  }
}

void PgDatabase::release(PGconn* conn) {
  const bool reusable = PQstatus(conn) == CONNECTION_OK &&
                        PQtransactionStatus(conn) == PQTRANS_IDLE &&
                        PQpipelineStatus(conn) == PQ_PIPELINE_OFF;
  {
    const std::lock_guard lock(mutex_);
    if (reusable) {
      idle_.push_back(conn);
    } else {
      --open_;
      prepared_.erase(conn);
    }
  }
  if (!reusable) PQfinish(conn);
  freed_.notify_one();
}

Rows PgDatabase::run(PGconn* conn, std::string_view sql, const std::vector<Param>& params) {
  const std::string statement(sql);
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) {
    // A C string would stop at a NUL and store the value cut short.
    if (p && p->find('\0') != std::string::npos) {
      throw PgError("22021", "a value holds a NUL character");
    }
    values.push_back(p ? p->c_str() : nullptr);
  }
  // A statement with parameters is prepared once per connection (the server parses and plans
  // it once) and then only executed.
  const std::string* name = params.empty() ? nullptr : preparedName(conn, statement, params.size());
  if (tCurrent != nullptr && tCurrent->conn == conn) {
    if (tCurrent->pendingBegin) return openWith(conn, *tCurrent, name, statement, values);
    // Its BEGIN failed: nothing may run outside the transaction the caller asked for.
    if (!tCurrent->begun) throw PgError("25P01", "the transaction did not begin");
  }
  PGresult* r = name != nullptr
                    ? PQexecPrepared(conn, name->c_str(), static_cast<int>(values.size()),
                                     values.data(), nullptr, nullptr, 0)
                    : PQexecParams(conn, statement.c_str(), static_cast<int>(values.size()),
                                   nullptr, values.data(), nullptr, nullptr, 0);
  const auto status = PQresultStatus(r);
  if (r != nullptr && (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)) return Rows(r);
  failed(conn, r);
}

const std::string* PgDatabase::preparedName(PGconn* conn, const std::string& sql,
                                            std::size_t parameters) {
  {
    const std::lock_guard lock(mutex_);
    auto& mine = prepared_[conn];
    if (const auto it = mine.find(sql); it != mine.end()) return &it->second;
    if (mine.size() >= kPreparedPerConnection) return nullptr;  // rare shapes run unprepared
  }
  // Only this thread uses `conn` now: no other can prepare on it meanwhile.
  std::string name = "cs" + std::to_string(nextPrepared_.fetch_add(1));
  PGresult* r = PQprepare(conn, name.c_str(), sql.c_str(), static_cast<int>(parameters), nullptr);
  if (r == nullptr || PQresultStatus(r) != PGRES_COMMAND_OK) failed(conn, r);
  PQclear(r);
  const std::lock_guard lock(mutex_);
  // The map's nodes do not move: the pointer stays valid while the connection lives, and only
  // this thread uses the connection.
  return &prepared_[conn].emplace(sql, std::move(name)).first->second;
}

std::string PgDatabase::runScriptResult(PGconn* conn, std::string_view sql) {
  if (tCurrent != nullptr && tCurrent->conn == conn && !tCurrent->begun) {
    // Sends the BEGIN and the guards first (a script cannot ride in the pipeline); refused when
    // the BEGIN failed.
    run(conn, "SELECT 1", {});
  }
  const std::string text(sql);
  PGresult* r = PQexec(conn, text.c_str());
  const auto status = PQresultStatus(r);
  if (r != nullptr && (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK)) {
    const char* tag = PQcmdStatus(r);
    std::string command = tag == nullptr ? std::string() : std::string(tag);
    PQclear(r);
    return command;
  }
  failed(conn, r);
}

void PgDatabase::runScript(PGconn* conn, std::string_view sql) {
  (void)runScriptResult(conn, sql);
}

template <class F>
auto PgDatabase::onConnection(F&& use) -> decltype(use(static_cast<PGconn*>(nullptr))) {
  if (tCurrent != nullptr && tCurrent->db == this) return use(tCurrent->conn);
  // A connection of the pool for this one use, given back whatever happens.
  struct Lease {
    PgDatabase& db;
    PGconn* conn;
    ~Lease() { db.release(conn); }
  } lease{*this, acquire()};
  return use(lease.conn);
}

void PgDatabase::script(std::string_view sql) {
  onConnection([&](PGconn* conn) { runScript(conn, sql); });
}

Rows PgDatabase::exec(std::string_view sql, const std::vector<Param>& params) {
  return onConnection([&](PGconn* conn) { return run(conn, sql, params); });
}

domain::Status PgDatabase::transact(const std::vector<std::string>& guards,
                                    const std::function<domain::Status()>& body) {
  return runTransaction("BEGIN ISOLATION LEVEL READ COMMITTED", guards, body);
}

bool PgDatabase::inTransaction() const {
  return tCurrent != nullptr && tCurrent->db == this;
}

domain::Status PgDatabase::snapshot(const std::function<domain::Status()>& body) {
  return runTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", {}, body);
}

Rows PgDatabase::execRecoverable(std::string_view sql, const std::vector<Param>& params) {
  if (tCurrent == nullptr || tCurrent->db != this) return exec(sql, params);
  Current& current = *tCurrent;
  const bool failedBefore = current.failure.has_value();
  run(current.conn, "SAVEPOINT certsteward_statement", {});
  try {
    Rows rows = run(current.conn, sql, params);
    run(current.conn, "RELEASE SAVEPOINT certsteward_statement", {});
    return rows;
  } catch (const PgError&) {
    run(current.conn, "ROLLBACK TO SAVEPOINT certsteward_statement", {});
    run(current.conn, "RELEASE SAVEPOINT certsteward_statement", {});
    // The statement's failure was undone: it no longer voids the transaction (one recorded
    // before the savepoint still does).
    if (!failedBefore) current.failure.reset();
    throw;
  }
}

domain::Status PgDatabase::runTransaction(const char* begin, const std::vector<std::string>& guards,
                                          const std::function<domain::Status()>& body) {
  std::vector<std::string> locks = guards;  // one order for everyone: no deadlock among guards
  std::sort(locks.begin(), locks.end());
  locks.erase(std::unique(locks.begin(), locks.end()), locks.end());
  if (tCurrent != nullptr && tCurrent->db == this) {
    // Joins the outer transaction, taking the guards it does not hold yet.
    Current& outer = *tCurrent;
    return guarded([&]() -> domain::Status {
      for (const auto& guard : locks) {
        if (std::find(outer.held.begin(), outer.held.end(), guard) != outer.held.end()) continue;
        run(outer.conn, kLockGuard, {guard});
        outer.held.push_back(guard);
      }
      return body();
    });
  }
  for (int attempt = 1;; ++attempt) {
    PGconn* conn = nullptr;
    try {
      conn = acquire();
    } catch (const PgError& e) {
      return translate(e);
    }
    Current current{this, conn, locks, std::nullopt, std::string(begin)};
    domain::Status result;
    {
      CurrentScope scope(&current);
      try {
        result = body();
        if (current.failure && (result || isTransient(*current.failure))) {
          // The body went on after a statement failed: the transaction is void, and is rolled
          // back with that error. A deadlock or serialization failure runs it again, whatever
          // the body made of it (the statements after it fail as "transaction aborted").
          result = translate(*current.failure);
        }
        if (result) {
          // COMMIT without the statement limit: cancelled while it waits for a synchronous
          // standby, it would commit on the primary alone and answer COMMIT with a warning, and
          // a failover could then lose what the caller was told is stored. One round trip for
          // both statements. An aborted transaction answers COMMIT with ROLLBACK, and no error.
          if (current.begun &&
              runScriptResult(conn, "SET LOCAL statement_timeout = 0; COMMIT") != "COMMIT") {
            result = domain::makeError(domain::ErrorCode::internal,
                                       "the database rolled the transaction back");
          }
        }
      } catch (const PgError& e) {
        result = translate(e);
      } catch (...) {
        if (PQtransactionStatus(conn) != PQTRANS_IDLE) PQclear(PQexec(conn, "ROLLBACK"));
        release(conn);
        throw;
      }
    }
    if (PQtransactionStatus(conn) == PQTRANS_INERROR ||
        PQtransactionStatus(conn) == PQTRANS_INTRANS) {
      PQclear(PQexec(conn, "ROLLBACK"));
    }
    release(conn);
    if (!result && result.error().reason == kTransientTransaction &&
        attempt < options_.transaction_attempts) {
      std::this_thread::sleep_for(std::chrono::milliseconds{5 * attempt});
      continue;
    }
    return result;
  }
}

domain::Result<bool> PgDatabase::isPrimary() {
  return guarded([&]() -> domain::Result<bool> {
    return exec("SELECT pg_is_in_recovery()").text(0, 0) == "f";
  });
}

domain::Error translate(const PgError& error) {
  // Fixed words per kind and the SQLSTATE: the server's own text can hold values (an input that
  // did not parse) or internals (hosts, constraint definitions), and this message can reach an
  // API answer.
  const std::string& s = error.sqlstate();
  const std::string code = " (SQLSTATE " + (s.empty() ? std::string("none") : s) + ")";
  using domain::ErrorCode;
  if (s == "40001" || s == "40P01") {
    return domain::makeError(ErrorCode::unavailable,
                             "the database gave up a transaction that met another" + code,
                             kTransientTransaction);
  }
  if (s == "57014") {
    return domain::makeError(ErrorCode::unavailable,
                             "the database did not answer within the statement timeout" + code);
  }
  if (s == "55P03") {
    return domain::makeError(ErrorCode::unavailable,
                             "the database did not grant a lock in time" + code);
  }
  if (s == "25006") {
    return domain::makeError(ErrorCode::unavailable,
                             "the database is read-only (a standby, not the primary)" + code);
  }
  if (s == "53300") {
    return domain::makeError(ErrorCode::unavailable,
                             "no free database connection (this pool's, or the server's "
                             "max_connections)" +
                                 code);
  }
  if (s.starts_with("08") || s.starts_with("53") || s.starts_with("57P") || s == "25P03" ||
      s == "58030" || s == "40003") {
    return domain::makeError(ErrorCode::unavailable, "the database cannot be reached" + code);
  }
  if (s == "23505") return domain::makeError(ErrorCode::conflict, "already exists" + code);
  if (s == "23503") {
    return domain::makeError(ErrorCode::failed_precondition,
                             "refers to something that does not exist" + code);
  }
  if (s == "23514" || s.starts_with("22")) {
    return domain::makeError(ErrorCode::invalid_argument,
                             "a value the database does not accept" + code);
  }
  return domain::makeError(ErrorCode::internal, "database error" + code);
}

}  // namespace certsteward::adapters::postgres
