// The PostgreSQL store's libpq layer (adapters/store/postgres/pg_database) against a real
// PostgreSQL started here on 127.0.0.1 (once for the suite): statements and their parameters,
// every error translated at the boundary without the values involved, transactions that commit
// together or not at all, guards that serialise, a deadlock run again, a bounded pool, and a
// pool that reconnects after the server restarts.
#include <doctest/doctest.h>

#include <atomic>
#include <barrier>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include "support/postgres_server.hpp"

using namespace certsteward;
using namespace certsteward::adapters::postgres;
using certsteward::testing::PostgresServer;

namespace {

std::unique_ptr<PgDatabase> openDb(PgOptions options = {}) {
  REQUIRE_MESSAGE(testing::sharedPostgres().available(), testing::sharedPostgres().reason());
  auto db = PgDatabase::open(testing::sharedPostgres().url(), options);
  REQUIRE_MESSAGE(db.ok(), (db.ok() ? "" : db.error().message));
  return std::move(*db);
}

// Tries to store a value with a NUL character in it.
domain::Status insertText(PgDatabase& db) {
  db.exec("CREATE TABLE IF NOT EXISTS t_nul (v text)");
  return guarded([&]() -> domain::Status {
    db.exec("INSERT INTO t_nul VALUES ($1)", {std::string("admin\0x", 7)});
    return {};
  });
}

// A fresh table of its own for one test case.
std::string table(PgDatabase& db, const std::string& name, const std::string& columns) {
  db.exec("DROP TABLE IF EXISTS " + name);
  db.exec("CREATE TABLE " + name + " (" + columns + ")");
  return name;
}

}  // namespace

TEST_CASE("postgres: statements take text parameters and NULLs, and say what they changed") {
  auto db = openDb();
  table(*db, "t_params", "id bigint primary key, name text, note text");
  auto inserted = db->exec("INSERT INTO t_params VALUES ($1, $2, $3), ($4, $5, $6)",
                           {"1", "one", std::nullopt, "2", "two; DROP TABLE t_params", "x"});
  CHECK(inserted.affected() == 2);
  auto rows = db->exec("SELECT id, name, note FROM t_params ORDER BY id");
  REQUIRE(rows.size() == 2);
  CHECK(rows.integer(0, 0) == 1);
  CHECK(rows.text(0, 1) == "one");
  CHECK_FALSE(rows.get(0, 2).has_value());
  CHECK(rows.text(1, 1) == "two; DROP TABLE t_params");  // a value, never SQL
  CHECK(db->exec("UPDATE t_params SET note = $1 WHERE id > $2", {"n", "0"}).affected() == 2);
  const auto primary = db->isPrimary();
  CHECK((primary.ok() && *primary));
}

TEST_CASE("postgres: errors are translated at the boundary, without the values involved") {
  auto db = openDb();
  table(*db, "t_parent", "id bigint primary key");
  table(*db, "t_errors",
        "id bigint primary key, secret text unique, parent bigint references t_parent(id), "
        "n int check (n >= 0)");
  db->exec("INSERT INTO t_errors (id, secret) VALUES (1, $1)", {"hunter2-value"});
  const auto fails = [&](const std::string& sql, const std::vector<Param>& params) {
    return guarded([&]() -> domain::Status {
      db->exec(sql, params);
      return {};
    });
  };
  struct Case {
    const char* name;
    std::string sql;
    std::vector<Param> params;
    domain::ErrorCode code;
  };
  const Case cases[] = {
      {"a unique key taken",
       "INSERT INTO t_errors (id, secret) VALUES (2, $1)",
       {"hunter2-value"},
       domain::ErrorCode::conflict},
      {"a missing parent",
       "INSERT INTO t_errors (id, parent) VALUES (3, $1)",
       {"42"},
       domain::ErrorCode::failed_precondition},
      {"a check broken",
       "INSERT INTO t_errors (id, n) VALUES (4, $1)",
       {"-1"},
       domain::ErrorCode::invalid_argument},
      {"a value of the wrong type",
       "SELECT $1::bigint",
       {"not-a-number"},
       domain::ErrorCode::invalid_argument},
      {"a statement that is wrong (a bug)", "SELEC 1", {}, domain::ErrorCode::internal},
      {"a table that is not there", "SELECT * FROM no_such_table", {}, domain::ErrorCode::internal},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    const auto s = fails(c.sql, c.params);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == c.code);
    CHECK(s.error().message.find("SQLSTATE") != std::string::npos);
    CHECK(s.error().message.find("hunter2") == std::string::npos);  // no DETAIL, no value
    CHECK(s.error().message.find("not-a-number") == std::string::npos);
  }
  // Nothing those statements tried was kept.
  CHECK(db->exec("SELECT count(*) FROM t_errors").integer(0, 0) == 1);

  PgOptions quick;
  quick.statement_timeout = std::chrono::milliseconds{200};
  auto impatient = openDb(quick);
  const auto slow = guarded([&]() -> domain::Status {
    impatient->exec("SELECT pg_sleep(3)");
    return {};
  });
  REQUIRE_FALSE(slow.ok());
  CHECK(slow.error().code == domain::ErrorCode::unavailable);
  CHECK(slow.error().message.find("statement timeout") != std::string::npos);
}

TEST_CASE("postgres: a wrong URL, password or address is a clear error that names no password") {
  REQUIRE_MESSAGE(testing::sharedPostgres().available(), testing::sharedPostgres().reason());
  const std::string port = std::to_string(testing::sharedPostgres().port());
  const auto wrongPassword = PgDatabase::open(
      "postgresql://certsteward:not-the-password-42@"
      "127.0.0.1:" +
      port + "/postgres");
  REQUIRE_FALSE(wrongPassword.ok());
  CHECK(wrongPassword.error().code == domain::ErrorCode::unavailable);
  CHECK(wrongPassword.error().message.find("password authentication failed") != std::string::npos);
  CHECK(wrongPassword.error().message.find("not-the-password-42") == std::string::npos);

  const auto nobody = PgDatabase::open(
      "postgresql://certsteward:x@127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) +
      "/postgres?connect_timeout=2");
  REQUIRE_FALSE(nobody.ok());
  CHECK(nobody.error().code == domain::ErrorCode::unavailable);

  const auto malformed = PgDatabase::open("postgresql://[::1");
  REQUIRE_FALSE(malformed.ok());
  CHECK(malformed.error().code == domain::ErrorCode::invalid_argument);
  CHECK(malformed.error().message.find("store.url") != std::string::npos);

  // libpq's multi-host form: the first host answers nothing, the second is the primary.
  const auto multi = PgDatabase::open(
      "postgresql://certsteward:" + std::string(PostgresServer::kPassword) +
      "@127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) + ",127.0.0.1:" + port +
      "/postgres?target_session_attrs=read-write&connect_timeout=2");
  REQUIRE_MESSAGE(multi.ok(), (multi.ok() ? "" : multi.error().message));
  const auto primary = (*multi)->isPrimary();
  CHECK((primary.ok() && *primary));
}

TEST_CASE("postgres: a transaction commits together or not at all, and an inner one joins") {
  auto db = openDb();
  table(*db, "t_tx", "id bigint primary key");
  const auto insert = [&](int id) {
    return guarded([&]() -> domain::Status {
      db->exec("INSERT INTO t_tx VALUES ($1)", {std::to_string(id)});
      return {};
    });
  };
  const auto count = [&] { return db->exec("SELECT count(*) FROM t_tx").integer(0, 0); };

  const auto advisoryLocks = [&] {
    return db
        ->exec(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = "
            "pg_backend_pid()")
        .integer(0, 0);
  };
  std::int64_t locksInside = -1;
  CHECK(db->transact({"outer"}, [&]() -> domain::Status {
            if (auto s = insert(1); !s) return s;
            return db->transact({"inner", "outer"}, [&] {  // joins, and takes "inner" too
              locksInside = advisoryLocks();
              return insert(2);
            });
          }).ok());
  CHECK(locksInside == 2);
  CHECK(count() == 2);

  // A body that carries on after a statement failed does not commit: the database voided the
  // transaction, and the first error is the answer.
  const auto swallowed = db->transact({}, [&]() -> domain::Status {
    (void)insert(1);  // taken: ignored here
    (void)insert(7);
    return {};
  });
  CHECK(swallowed.error().code == domain::ErrorCode::conflict);
  CHECK(count() == 2);

  // A transaction on another database inside this one leaves this one in place.
  auto other = openDb();
  const auto nested = db->transact({}, [&]() -> domain::Status {
    if (auto s = other->transact({}, [&]() -> domain::Status { return {}; }); !s) return s;
    if (auto s = insert(8); !s) return s;
    return domain::makeError(domain::ErrorCode::failed_precondition, "undo");
  });
  CHECK(nested.error().code == domain::ErrorCode::failed_precondition);
  CHECK(count() == 2);  // 8 was written in the transaction, and went with it

  // A value with a NUL character is refused, not cut short.
  const auto nul = insertText(*db);
  CHECK(nul.error().code == domain::ErrorCode::invalid_argument);

  const auto refused = db->transact({}, [&]() -> domain::Status {
    if (auto s = insert(3); !s) return s;
    return domain::makeError(domain::ErrorCode::failed_precondition, "changed my mind");
  });
  CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
  CHECK(count() == 2);

  const auto duplicate = db->transact({}, [&]() -> domain::Status {
    if (auto s = insert(4); !s) return s;
    return insert(1);  // taken: the whole transaction goes
  });
  CHECK(duplicate.error().code == domain::ErrorCode::conflict);
  CHECK(count() == 2);

  CHECK_THROWS_AS(db->transact({},
                               [&]() -> domain::Status {
                                 (void)insert(5);
                                 throw std::runtime_error("a bug");
                               }),
                  std::runtime_error);
  CHECK(count() == 2);
  CHECK(insert(6).ok());  // the connection went back to the pool clean
  CHECK(count() == 3);
}

TEST_CASE("postgres: transactions naming one guard run one after the other") {
  auto db = openDb(PgOptions{8, std::chrono::seconds{10}, std::chrono::seconds{10}, 5, 5});
  table(*db, "t_counter", "id int primary key, n bigint");
  db->exec("INSERT INTO t_counter VALUES (1, 0)");
  constexpr int kThreads = 6;
  constexpr int kEach = 15;
  std::vector<std::thread> threads;
  std::atomic<int> failed{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        // Read, then write what was read plus one: without the guard, READ COMMITTED would
        // lose increments.
        auto s = db->transact({"counter:1"}, [&]() -> domain::Status {
          return guarded([&]() -> domain::Status {
            const auto n = db->exec("SELECT n FROM t_counter WHERE id = 1").integer(0, 0);
            db->exec("UPDATE t_counter SET n = $1 WHERE id = 1", {std::to_string(n + 1)});
            return {};
          });
        });
        if (!s) ++failed;
      }
    });
  }
  for (auto& t : threads)
    t.join();
  CHECK(failed == 0);
  CHECK(db->exec("SELECT n FROM t_counter WHERE id = 1").integer(0, 0) == kThreads * kEach);
}

TEST_CASE("postgres: a deadlock is run again, and both transactions commit") {
  auto db = openDb();
  table(*db, "t_dead", "id int primary key, n int");
  db->exec("INSERT INTO t_dead VALUES (1, 0), (2, 0)");
  std::atomic<int> runs{0};
  std::barrier both(2);
  bool first = true;  // only the first runs meet at the barrier
  std::mutex firstMutex;
  const auto worker = [&](int a, int b) {
    return db->transact({}, [&]() -> domain::Status {
      ++runs;
      bool meet = false;
      {
        const std::lock_guard lock(firstMutex);
        meet = first;
      }
      return guarded([&]() -> domain::Status {
        db->exec("UPDATE t_dead SET n = n + 1 WHERE id = $1", {std::to_string(a)});
        if (meet) both.arrive_and_wait();  // each holds one row, then wants the other's
        {
          const std::lock_guard lock(firstMutex);
          first = false;
        }
        db->exec("UPDATE t_dead SET n = n + 1 WHERE id = $1", {std::to_string(b)});
        return {};
      });
    });
  };
  domain::Status left;
  domain::Status right;
  std::thread t1([&] { left = worker(1, 2); });
  std::thread t2([&] { right = worker(2, 1); });
  t1.join();
  t2.join();
  CHECK(left.ok());
  CHECK(right.ok());
  CHECK(runs >= 3);  // one of them was run again
  CHECK(db->exec("SELECT sum(n) FROM t_dead").integer(0, 0) == 4);
}

TEST_CASE("postgres: the pool is bounded, and a caller waits for it no longer than told") {
  PgOptions small;
  small.pool_size = 1;
  small.pool_wait = std::chrono::milliseconds{200};
  auto db = openDb(small);
  std::atomic<bool> inside{false};
  std::thread holder([&] {
    (void)db->transact({}, [&]() -> domain::Status {
      inside = true;
      std::this_thread::sleep_for(std::chrono::milliseconds{800});
      return {};
    });
  });
  while (!inside)
    std::this_thread::sleep_for(std::chrono::milliseconds{5});
  const auto waited = guarded([&]() -> domain::Status {
    db->exec("SELECT 1");
    return {};
  });
  holder.join();
  REQUIRE_FALSE(waited.ok());
  CHECK(waited.error().code == domain::ErrorCode::unavailable);
  CHECK(waited.error().message.find("no free database connection") != std::string::npos);
  CHECK(db->exec("SELECT 1").integer(0, 0) == 1);  // free again
}

TEST_CASE("postgres: after the server restarts, the pool's next statement works") {
  auto db = openDb();
  CHECK(db->exec("SELECT 1").integer(0, 0) == 1);  // a connection now idle in the pool
  REQUIRE(testing::sharedPostgres().restart());
  CHECK(db->exec("SELECT 2").integer(0, 0) == 2);
  testing::sharedPostgres().kill9();  // a crash: recovery at the next start
  const auto down = guarded([&]() -> domain::Status {
    db->exec("SELECT 3");
    return {};
  });
  REQUIRE_FALSE(down.ok());
  CHECK(down.error().code == domain::ErrorCode::unavailable);
  REQUIRE(testing::sharedPostgres().restart());
  CHECK(db->exec("SELECT 4").integer(0, 0) == 4);
}
