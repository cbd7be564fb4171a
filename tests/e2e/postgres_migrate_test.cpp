// `certsteward migrate` SQLite -> PostgreSQL -> SQLite on a store the server wrote: each move
// counts every kind in both stores and verifies the copied chain; the server then runs on the
// PostgreSQL copy and on the copy of the copy, where the same people sign in and the audit head
// recorded before the moves still verifies.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <boost/json.hpp>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include "e2e/http_client.hpp"
#include "e2e/json_polling.hpp"
#include "e2e/server_process.hpp"
#include "support/postgres_server.hpp"

using namespace certsteward::testing;
namespace json = boost::json;

namespace {

struct Ran {
  int status = -1;
  std::string output;
};

// Runs the packaged binary with `args` (each quoted for the shell); its exit status and output.
Ran runBinary(const std::vector<std::string>& args) {
  std::string command = std::string("'") + CERTSTEWARD_BINARY + "'";
  for (const auto& a : args)
    command += " '" + a + "'";
  command += " 2>&1";
  Ran ran;
  FILE* out = ::popen(command.c_str(), "r");
  REQUIRE(out != nullptr);
  std::array<char, 4096> buffer{};
  for (std::size_t n; (n = std::fread(buffer.data(), 1, buffer.size(), out)) > 0;)
    ran.output.append(buffer.data(), n);
  const int status = ::pclose(out);
  ran.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return ran;
}

const std::map<std::string, std::string> kRoot{
    {"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", "root"},
    {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", "root password 1"}};

std::string login(HttpClient& http, const std::string& user, const std::string& password) {
  const auto r =
      http.request("POST", "/api/v1/auth/login",
                   json::serialize(json::object{{"username", user}, {"password", password}}));
  if (r.status != 200) return {};
  return "Authorization: Bearer " + std::string(parseObject(r).at("access_token").as_string());
}

// The server on `storeUrl`: root and carol sign in, the projects are there, and the chain
// verifies up to the recorded head.
void serveAndCheck(const std::string& storeUrl, std::int64_t sequence,
                   const std::string& checksum) {
  ServerProcess server(kRoot, "store.url = " + storeUrl + "\n");
  HttpClient http(server.baseUrl());
  const std::string auth = login(http, "root", "root password 1");
  REQUIRE_FALSE(auth.empty());
  CHECK_FALSE(login(http, "carol", "carol password 1").empty());
  CHECK(login(http, "carol", "wrong password").empty());
  const auto projects = http.request("GET", "/api/v1/projects", "", {auth});
  for (int i = 1; i <= 3; ++i)
    CHECK(projects.body.find("\"project " + std::to_string(i) + "\"") != std::string::npos);
  const auto verified =
      http.request("POST",
                   "/api/v1/audit-logs/verify?expected_sequence=" + std::to_string(sequence) +
                       "&expected_checksum=" + checksum,
                   "", {auth});
  REQUIRE_MESSAGE(verified.status == 200, verified.body);
  CHECK_MESSAGE(parseObject(verified).at("intact").as_bool(), verified.body);
  CHECK(server.stop() == 0);
}

}  // namespace

TEST_CASE("postgres migrate: SQLite to PostgreSQL and back, the same people sign in") {
  REQUIRE_MESSAGE(sharedPostgres().available(), sharedPostgres().reason());
  {
    auto admin = certsteward::adapters::postgres::PgDatabase::open(sharedPostgres().url());
    REQUIRE(admin.ok());
    (*admin)->exec("DROP DATABASE IF EXISTS migrate_round WITH (FORCE)");
    (*admin)->exec("CREATE DATABASE migrate_round");
  }
  const std::string postgres = sharedPostgres().url("migrate_round");

  // A store the server wrote.
  ServerProcess source(kRoot);
  const std::string sqlite = "sqlite://" + source.databasePath().string();
  const auto back = source.databasePath().parent_path() / "back" / "db.sqlite";
  std::int64_t sequence = 0;
  std::string checksum;
  {
    HttpClient http(source.baseUrl());
    const std::string auth = login(http, "root", "root password 1");
    REQUIRE_FALSE(auth.empty());
    for (int i = 1; i <= 3; ++i) {
      REQUIRE(http.request("POST", "/api/v1/projects",
                           json::serialize(json::object{{"name", "project " + std::to_string(i)}}),
                           {auth})
                  .status == 201);
    }
    REQUIRE(
        http.request("POST", "/api/v1/users",
                     R"({"username":"carol","password":"carol password 1","org_role":"viewer"})",
                     {auth})
            .status == 201);
    const auto head = parseObject(http.request("GET", "/api/v1/audit-logs/head", "", {auth}));
    sequence = head.at("sequence").as_int64();
    checksum = std::string(head.at("checksum").as_string());
    REQUIRE(sequence >= 5);
  }
  REQUIRE(source.stop() == 0);
  const std::string config = source.configPath().string();

  const auto there = runBinary({"migrate", "--config", config, "--from", sqlite, "--to", postgres});
  REQUIRE_MESSAGE(there.status == 0, there.output);
  CHECK(there.output.find("users: 2 in the source, 2 in the target") != std::string::npos);
  CHECK(there.output.find("projects: 3 in the source, 3 in the target") != std::string::npos);
  CHECK(there.output.find("head " + std::to_string(sequence) + " " + checksum) !=
        std::string::npos);
  CHECK(there.output.find(PostgresServer::kPassword) == std::string::npos);
  // The target is no longer empty: a second copy into it is refused.
  const auto again = runBinary({"migrate", "--config", config, "--from", sqlite, "--to", postgres});
  CHECK(again.status == 2);
  CHECK(again.output.find("not empty") != std::string::npos);

  const auto home = runBinary(
      {"migrate", "--config", config, "--from", postgres, "--to", "sqlite://" + back.string()});
  REQUIRE_MESSAGE(home.status == 0, home.output);
  CHECK(home.output.find("migration complete") != std::string::npos);

  serveAndCheck(postgres, sequence, checksum);
  serveAndCheck("sqlite://" + back.string(), sequence, checksum);
}
