// A packaged instance on a PostgreSQL primary with a synchronous streaming standby, named
// together in a multi-host URL: the primary dies (SIGKILL), the instance is not ready while no
// server takes writes, the standby is promoted, and the instance carries on against it with
// everything it acknowledged before the crash. And an instance that reaches PostgreSQL over TLS
// with sslmode=verify-full.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include "e2e/http_client.hpp"
#include "e2e/json_polling.hpp"
#include "e2e/server_process.hpp"
#include "support/postgres_server.hpp"
#include "support/test_certificates.hpp"

using namespace certsteward::testing;
using certsteward::adapters::postgres::PgDatabase;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

std::unique_ptr<PgDatabase> connect(const std::string& url) {
  auto db = PgDatabase::open(url);
  REQUIRE_MESSAGE(db.ok(), (db.ok() ? "" : db.error().message));
  return std::move(*db);
}

}  // namespace

TEST_CASE("postgres failover: the standby is promoted and the instance carries on, nothing lost") {
  PostgresServer primary;
  REQUIRE_MESSAGE(primary.available(), primary.reason());
  {
    auto admin = connect(primary.url());
    admin->exec("CREATE DATABASE failover");
  }
  PostgresServer standby(PostgresServer::StandbyOf{primary});
  REQUIRE_MESSAGE(standby.available(), standby.reason());
  {
    // Synchronous: a commit returns once the standby has the WAL on disk.
    auto admin = connect(primary.url());
    admin->exec("ALTER SYSTEM SET synchronous_standby_names = '*'");
    admin->exec("SELECT pg_reload_conf()");
    REQUIRE(eventually(
        [&] {
          const auto rows =
              admin->exec("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'");
          return rows.integer(0, 0) == 1;
        },
        15s));
  }

  const std::string url = std::string("postgresql://") + PostgresServer::kUser + ":" +
                          PostgresServer::kPassword +
                          "@127.0.0.1:" + std::to_string(primary.port()) +
                          ",127.0.0.1:" + std::to_string(standby.port()) +
                          "/failover?target_session_attrs=read-write&connect_timeout=2";
  ServerProcess server({{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", "root"},
                        {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", "correct horse battery"}},
                       "store.url = " + url + "\nstore.statement_timeout = 5s\n");
  HttpClient http(server.baseUrl());
  const auto login = http.request("POST", "/api/v1/auth/login",
                                  R"({"username":"root","password":"correct horse battery"})");
  REQUIRE(login.status == 200);
  const std::string auth =
      "Authorization: Bearer " + std::string(parseObject(login).at("access_token").as_string());
  CHECK(http.request("GET", "/readyz").status == 200);

  // Writes the instance acknowledged before the crash.
  std::vector<std::string> acknowledged;
  for (int i = 0; i < 20; ++i) {
    const auto r = http.request(
        "POST", "/api/v1/projects",
        json::serialize(json::object{{"name", "before-" + std::to_string(i)}}), {auth});
    REQUIRE_MESSAGE(r.status == 201, r.body);
    acknowledged.push_back(std::string(parseObject(r).at("project").at("id").as_string()));
  }

  primary.kill9();
  // No server takes writes: not ready, and a write fails cleanly (503), changing nothing.
  CHECK(eventually([&] { return http.request("GET", "/readyz").status == 503; }, 10s));
  const auto refused = http.request("POST", "/api/v1/projects",
                                    json::serialize(json::object{{"name", "during"}}), {auth});
  CHECK(refused.status == 503);
  CHECK(refused.body.find("postgres") == std::string::npos);  // no internals
  CHECK(refused.body.find(PostgresServer::kPassword) == std::string::npos);

  const auto promotedAt = std::chrono::steady_clock::now();
  REQUIRE_MESSAGE(standby.promote(), standby.log());
  REQUIRE(eventually([&] { return http.request("GET", "/readyz").status == 200; }, 20s));
  MESSAGE("ready again " << std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::steady_clock::now() - promotedAt)
                                .count()
                         << " ms after the promotion");

  // Everything acknowledged is there, and the instance writes to the new primary.
  for (const auto& id : acknowledged)
    CHECK(http.request("GET", "/api/v1/projects/" + id, "", {auth}).status == 200);
  const auto after = http.request("POST", "/api/v1/projects",
                                  json::serialize(json::object{{"name", "after"}}), {auth});
  CHECK_MESSAGE(after.status == 201, after.body);
  const auto verified = http.request("POST", "/api/v1/audit-logs/verify", "", {auth});
  REQUIRE_MESSAGE(verified.status == 200, verified.body);
  CHECK(parseObject(verified).at("intact").as_bool());
  CHECK(parseObject(verified).at("verified").as_int64() >= 21);
  CHECK(server.stop() == 0);
}

TEST_CASE(
    "postgres TLS: the instance connects with sslmode=verify-full, and a server its CA did "
    "not sign is refused") {
  PostgresServer server;
  REQUIRE_MESSAGE(server.available(), server.reason());
  const auto material = makeTestMaterial("db.example.test", "IP:127.0.0.1");
  const auto stranger = makeTestMaterial("db.example.test", "IP:127.0.0.1");  // another CA
  REQUIRE_MESSAGE(server.restartWithTls(material.certificate_pem, material.private_key_pem),
                  server.log());
  const auto dir = freshServerDir("pg-tls-roots");
  std::ofstream(dir / "ca.pem") << material.chain_pem;
  std::ofstream(dir / "stranger.pem") << stranger.chain_pem;
  {
    auto admin = connect(server.url());
    admin->exec("CREATE DATABASE tls");
  }
  const std::string base = server.url("tls") + "?sslmode=verify-full&sslrootcert=";

  // A CA that did not sign the server's certificate: refused, saying why, without the password.
  auto refused =
      certsteward::adapters::postgres::PgDatabase::open(base + (dir / "stranger.pem").string());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == certsteward::domain::ErrorCode::unavailable);
  // (Both throw-away CAs have the same name: OpenSSL takes the stranger as the issuer and its
  // signature check fails, reported as "SSL error: EVP lib".)
  CHECK_MESSAGE(refused.error().message.find("SSL error") != std::string::npos,
                refused.error().message);
  CHECK(refused.error().message.find(PostgresServer::kPassword) == std::string::npos);

  ServerProcess instance({{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", "root"},
                          {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", "correct horse battery"}},
                         "store.url = " + base + (dir / "ca.pem").string() + "\n");
  HttpClient http(instance.baseUrl());
  CHECK(http.request("GET", "/readyz").status == 200);
  CHECK(http.request("POST", "/api/v1/auth/login",
                     R"({"username":"root","password":"correct horse battery"})")
            .status == 200);
  // The instance's own sessions are encrypted (this check's session left out).
  auto check = connect(base + (dir / "ca.pem").string());
  const auto sessions = check->exec(
      "SELECT count(*), count(*) FILTER (WHERE s.ssl) FROM pg_stat_activity a JOIN pg_stat_ssl s "
      "USING (pid) WHERE a.datname = 'tls' AND a.pid <> pg_backend_pid()");
  CHECK(sessions.integer(0, 0) >= 1);
  CHECK(sessions.integer(0, 1) == sessions.integer(0, 0));
  CHECK(instance.stop() == 0);
  std::filesystem::remove_all(dir);
}
