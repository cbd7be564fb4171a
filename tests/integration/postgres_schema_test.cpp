// The PostgreSQL store's schema migrations (adapters/store/postgres/pg_schema) against a real
// PostgreSQL started here: applied once, by one of several processes at once, refused on a newer
// database, and the triggers that keep the certificate counts and each project's generation.
#include <doctest/doctest.h>

#include <string>
#include <thread>
#include <vector>

#include <certsteward/adapters/store/postgres/pg_schema.hpp>
#include "support/postgres_server.hpp"

using namespace certsteward;
using namespace certsteward::adapters::postgres;

namespace {

// A new, empty database of its own; its URL.
std::string freshDatabase(const std::string& name) {
  REQUIRE_MESSAGE(testing::sharedPostgres().available(), testing::sharedPostgres().reason());
  auto admin = PgDatabase::open(testing::sharedPostgres().url());
  REQUIRE(admin.ok());
  (*admin)->exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  (*admin)->exec("CREATE DATABASE " + name);
  return testing::sharedPostgres().url(name);
}

std::unique_ptr<PgDatabase> openUrl(const std::string& url) {
  auto db = PgDatabase::open(url);
  REQUIRE_MESSAGE(db.ok(), (db.ok() ? "" : db.error().message));
  return std::move(*db);
}

std::int64_t count(PgDatabase& db, const std::string& sql) {
  return db.exec(sql).integer(0, 0);
}

}  // namespace

TEST_CASE("postgres schema: an empty database is migrated once, and again changes nothing") {
  auto db = openUrl(freshDatabase("schema_once"));
  REQUIRE(migrate(*db).ok());
  CHECK(count(*db, "SELECT count(*) FROM schema_migrations") == latestSchemaVersion());
  for (const char* table :
       {"certificates", "certificate_counts", "certificate_generations", "jobs", "job_logs",
        "projects", "users", "memberships", "resources", "audit_log", "license", "refresh_tokens",
        "idempotency", "rate_limits", "leader_locks", "settings", "events", "ca_activity",
        "challenge_tokens"}) {
    CAPTURE(table);
    CHECK(count(*db, std::string("SELECT count(*) FROM information_schema.tables WHERE "
                                 "table_name = '") +
                         table + "'") == 1);
  }
  REQUIRE(migrate(*db).ok());
  CHECK(count(*db, "SELECT count(*) FROM schema_migrations") == latestSchemaVersion());
}

TEST_CASE("postgres schema: processes migrating at once apply each version once") {
  const std::string url = freshDatabase("schema_race");
  std::vector<std::thread> processes;
  std::vector<domain::Status> results(4);
  for (std::size_t i = 0; i < results.size(); ++i) {
    processes.emplace_back([&, i] {
      auto db = PgDatabase::open(url);
      results[i] = db.ok() ? migrate(**db) : domain::Status(db.error());
    });
  }
  for (auto& p : processes)
    p.join();
  for (const auto& r : results)
    CHECK_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  auto db = openUrl(url);
  CHECK(count(*db, "SELECT count(*) FROM schema_migrations") == latestSchemaVersion());
}

TEST_CASE("postgres schema: a database newer than this binary is refused, and left as it is") {
  auto db = openUrl(freshDatabase("schema_newer"));
  REQUIRE(migrate(*db).ok());
  db->exec("INSERT INTO schema_migrations (version, applied_at) VALUES ($1, 0)",
           {std::to_string(latestSchemaVersion() + 1)});
  const auto refused = migrate(*db);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
  CHECK(refused.error().message.find("downgrades are not supported") != std::string::npos);
  CHECK(count(*db, "SELECT max(version) FROM schema_migrations") == latestSchemaVersion() + 1);
}

TEST_CASE("postgres schema: the trigger keeps the counts by status and each project's generation") {
  auto db = openUrl(freshDatabase("schema_counts"));
  REQUIRE(migrate(*db).ok());
  const auto insert = [&](const std::string& id, const std::string& project,
                          const std::string& status) {
    db->exec(
        "INSERT INTO certificates (id, project_id, status, issuer_type, common_name, auto_renew, "
        "created_at, distribution_pending, version, doc) VALUES ($1, $2, $3, 'acme', $1, true, 0, "
        "false, 1, '{}')",
        {id, project, status});
  };
  const auto n = [&](const std::string& project, const std::string& status) {
    return count(*db, "SELECT COALESCE(SUM(n), 0) FROM certificate_counts WHERE project_id = '" +
                          project + "' AND status = '" + status + "'");
  };
  const auto generation = [&](const std::string& project) {
    return count(*db,
                 "SELECT COALESCE(MAX(generation), 0) FROM certificate_generations WHERE "
                 "project_id = '" +
                     project + "'");
  };
  insert("c1", "p1", "issuing");
  insert("c2", "p1", "issuing");
  insert("c3", "p2", "active");
  CHECK(n("p1", "issuing") == 2);
  CHECK(n("p2", "active") == 1);
  CHECK(generation("p1") == 2);
  CHECK(generation("p2") == 1);

  db->exec("UPDATE certificates SET status = 'active', version = version + 1 WHERE id = 'c1'");
  CHECK(n("p1", "issuing") == 1);
  CHECK(n("p1", "active") == 1);
  CHECK(generation("p1") == 3);
  db->exec("UPDATE certificates SET doc = '{\"x\":1}' WHERE id = 'c2'");  // status unchanged
  CHECK(n("p1", "issuing") == 1);
  CHECK(generation("p1") == 4);  // every write moves the generation

  db->exec("DELETE FROM certificates WHERE id = 'c3'");
  CHECK(n("p2", "active") == 0);
  CHECK(generation("p2") == 2);

  // A rolled-back write leaves both as they were.
  const auto undone = db->transact({}, [&]() -> domain::Status {
    insert("c4", "p1", "issuing");
    return domain::makeError(domain::ErrorCode::failed_precondition, "no");
  });
  CHECK_FALSE(undone.ok());
  CHECK(n("p1", "issuing") == 1);
  CHECK(generation("p1") == 4);
}
