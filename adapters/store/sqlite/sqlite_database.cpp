// SQLite connections, statements, transactions and error translation.
#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>

#include <sqlite3.h>

namespace certsteward::adapters::sqlite {
namespace {

[[noreturn]] void fail(sqlite3* db, int code) {
  throw SqliteError(code, db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code));
}

// The database whose transaction the calling thread is inside (Database::transact), if any.
thread_local const Database* tTransactionOf = nullptr;

}  // namespace

Statement::~Statement() {
  if (stmt_ != nullptr) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
}

Statement& Statement::bind(std::string_view text) {
  const int rc = sqlite3_bind_text(stmt_, next_++, text.data(), static_cast<int>(text.size()),
                                   SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) fail(sqlite3_db_handle(stmt_), rc);
  return *this;
}

Statement& Statement::bind(std::int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, next_++, value);
  if (rc != SQLITE_OK) fail(sqlite3_db_handle(stmt_), rc);
  return *this;
}

Statement& Statement::bind(std::nullptr_t) {
  const int rc = sqlite3_bind_null(stmt_, next_++);
  if (rc != SQLITE_OK) fail(sqlite3_db_handle(stmt_), rc);
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(sqlite3_db_handle(stmt_), sqlite3_extended_errcode(sqlite3_db_handle(stmt_)));
}

int Statement::run() {
  while (step()) {
  }
  return sqlite3_changes(sqlite3_db_handle(stmt_));
}

std::string Statement::text(int column) const {
  const auto* p = sqlite3_column_text(stmt_, column);
  const int n = sqlite3_column_bytes(stmt_, column);
  return p != nullptr ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n))
                      : std::string{};
}

std::int64_t Statement::integer(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

bool Statement::isNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::optional<domain::Timestamp> Statement::timestamp(int column) const {
  if (isNull(column)) return std::nullopt;
  return domain::Timestamp{domain::Duration{integer(column)}};
}

Connection::Connection(const std::string& path, std::chrono::milliseconds busyTimeout) {
  const int rc =
      sqlite3_open_v2(path.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    const std::string message = db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw SqliteError(rc, "cannot open " + path + ": " + message);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, static_cast<int>(busyTimeout.count()));
  exec(
      "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=OFF;"
      "PRAGMA temp_store=MEMORY; PRAGMA cache_size=-16000;");
}

Connection::~Connection() {
  for (auto& [sql, stmt] : cache_)
    sqlite3_finalize(stmt);
  sqlite3_close(db_);
}

Statement Connection::prepare(std::string_view sql) {
  const std::string key(sql);
  if (const auto it = cache_.find(key); it != cache_.end()) return Statement(it->second);
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db_, key.c_str(), static_cast<int>(key.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) fail(db_, rc);
  cache_.emplace(key, stmt);
  return Statement(stmt);
}

void Connection::exec(const std::string& sql) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    const std::string message = error != nullptr ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    throw SqliteError(sqlite3_extended_errcode(db_), message);
  }
}

std::int64_t Connection::changes() const {
  return sqlite3_changes(db_);
}

bool Connection::inTransaction() const {
  return sqlite3_get_autocommit(db_) == 0;
}

Transaction::Transaction(Connection& connection, bool immediate)
    : connection_(connection), nested_(connection.inTransaction()) {
  if (nested_) {
    connection_.prepare("SAVEPOINT step").run();
  } else {
    connection_.prepare(immediate ? "BEGIN IMMEDIATE" : "BEGIN").run();
  }
}

Transaction::~Transaction() {
  if (!done_) {
    try {
      if (nested_) {
        connection_.prepare("ROLLBACK TO step").run();
        connection_.prepare("RELEASE step").run();
      } else {
        connection_.prepare("ROLLBACK").run();
      }
    } catch (const SqliteError&) {
      // The transaction was already rolled back by SQLite (e.g. after SQLITE_FULL).
    }
  }
}

void Transaction::commit() {
  connection_.prepare(nested_ ? "RELEASE step" : "COMMIT").run();
  done_ = true;
}

domain::Error translate(const SqliteError& error) {
  switch (error.code() & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return domain::makeError(domain::ErrorCode::unavailable, "the database is busy; try again");
    case SQLITE_CONSTRAINT:
      return domain::makeError(domain::ErrorCode::conflict, "already exists");
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
      return domain::makeError(domain::ErrorCode::unavailable,
                               std::string("the database cannot be written: ") + error.what());
    default:
      return domain::makeError(domain::ErrorCode::internal,
                               std::string("store error: ") + error.what());
  }
}

Database::Database(std::string path, int readers, std::chrono::milliseconds busyTimeout)
    : path_(std::move(path)), busyTimeout_(busyTimeout) {
  writer_ = std::make_unique<Connection>(path_, busyTimeout_);
  for (int i = 0; i < readers; ++i)
    idle_.push_back(std::make_unique<Connection>(path_, busyTimeout_));
}

Database::Lease::~Lease() {
  switch (kind_) {
    case Kind::writer:
      db_.writerMutex_.unlock();
      break;
    case Kind::reader: {
      std::lock_guard lock(db_.poolMutex_);
      db_.idle_.emplace_back(c_);
      break;
    }
    case Kind::joined:
      break;
  }
}

Database::Lease Database::reader() {
  if (tTransactionOf == this) return Lease(*this, *writer_, Lease::Kind::joined);
  {
    std::lock_guard lock(poolMutex_);
    if (!idle_.empty()) {
      Connection* c = idle_.back().release();
      idle_.pop_back();
      return Lease(*this, *c, Lease::Kind::reader);
    }
  }
  // All readers busy: open one more; it joins the pool when returned.
  return Lease(*this, *new Connection(path_, busyTimeout_), Lease::Kind::reader);
}

Database::Lease Database::writer() {
  if (tTransactionOf == this) return Lease(*this, *writer_, Lease::Kind::joined);
  writerMutex_.lock();
  return Lease(*this, *writer_, Lease::Kind::writer);
}

domain::Status Database::transact(const std::function<domain::Status()>& body) {
  if (tTransactionOf == this) return body();
  if (tTransactionOf != nullptr) {
    return domain::makeError(domain::ErrorCode::internal,
                             "a transaction cannot span two SQLite stores");
  }
  return guarded([&]() -> domain::Status {
    auto lease = writer();
    Transaction tx(*lease, true);
    struct Scope {
      explicit Scope(const Database* db) { tTransactionOf = db; }
      ~Scope() { tTransactionOf = nullptr; }
    };
    domain::Status result;
    {
      Scope scope(this);
      result = body();
    }
    if (result) tx.commit();  // otherwise the destructor rolls back
    return result;
  });
}

}  // namespace certsteward::adapters::sqlite
