// Three instances of the packaged binary on one real PostgreSQL, issuing and renewing through
// real Pebble + bind9 and delivering to file targets, while the scheduler's leader and then a
// worker are killed (SIGKILL):
// never two leaders, a new one within the lease, every job done once, every certificate issued,
// and the audit chain intact afterwards.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include "e2e/http_client.hpp"
#include "e2e/json_polling.hpp"
#include "e2e/server_process.hpp"
#include "support/bind9_server.hpp"
#include "support/ed25519_keys.hpp"
#include "support/pebble_server.hpp"
#include "support/postgres_server.hpp"
#include "support/test_licenses.hpp"

using namespace certsteward::testing;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

// A new, empty database on the suite's PostgreSQL; its URL.
std::string freshDatabase(const std::string& name) {
  REQUIRE_MESSAGE(sharedPostgres().available(), sharedPostgres().reason());
  auto admin = certsteward::adapters::postgres::PgDatabase::open(sharedPostgres().url());
  REQUIRE(admin.ok());
  (*admin)->exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
  (*admin)->exec("CREATE DATABASE " + name);
  return sharedPostgres().url(name);
}

std::string portOf(const ServerProcess& s) {
  const std::string url = s.baseUrl();
  return url.substr(url.rfind(':') + 1);
}

// Whether the instance's scheduler leads now, from its own /metrics.
bool leads(ServerProcess& s) {
  HttpClient http(s.baseUrl());
  const auto r = http.request("GET", "/metrics");
  return r.status == 200 && r.body.find("\ncertsteward_scheduler_leader 1") != std::string::npos;
}

}  // namespace

TEST_CASE("postgres scale-out: three instances under load, the leader and a worker killed") {
  const std::string url = freshDatabase("scale_out");
  Bind9Server dns;
  REQUIRE_MESSAGE(dns.available(), dns.reason());
  PebbleServer ca(PebbleOptions{dns.address(), {}, 0});
  REQUIRE_MESSAGE(ca.available(), ca.reason());
  const auto [priv, pub] = ed25519KeyPairPem();
  const auto keyFile = std::filesystem::temp_directory_path() /
                       ("certsteward-pg-scale-license-" + std::to_string(::getpid()) + ".pem");
  std::ofstream(keyFile) << pub;
  const auto targets = freshServerDir("pg-scale-files");

  const std::string config =
      "store.url = " + url +
      "\nstore.pool_size = 4\n"
      "worker.enabled = true\nworker.poll_interval = 200ms\nworker.lock_ttl = 3s\n"
      "scheduler.heartbeat = 200ms\nscheduler.leader_ttl = 1s\nscheduler.interval = 1s\n"
      "acme.poll_interval = 100ms\nacme.ca_bundle = " +
      ca.caFile() + "\ndns.poll_interval = 50ms\ndns.propagation_timeout = 10s\ndns.resolvers = " +
      dns.address() + "\nlicense.public_key_file = " + keyFile.string() +
      "\ndistribution.file_directories = " + targets.string() + "\n";
  const std::map<std::string, std::string> env{
      {"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", "root"},
      {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", "correct horse battery"}};
  std::vector<std::unique_ptr<ServerProcess>> instances;
  for (int i = 0; i < 3; ++i)
    instances.push_back(std::make_unique<ServerProcess>(env, config));
  std::vector<bool> alive(3, true);
  std::vector<std::unique_ptr<HttpClient>> clients;
  for (const auto& s : instances)
    clients.push_back(std::make_unique<HttpClient>(s->baseUrl()));
  const auto http = [&](int i) -> HttpClient& { return *clients[static_cast<std::size_t>(i)]; };

  auto login = http(0).request("POST", "/api/v1/auth/login",
                               R"({"username":"root","password":"correct horse battery"})");
  REQUIRE(login.status == 200);
  const std::string auth = "Authorization: Bearer " + field(parseObject(login), "access_token");
  const auto license = certsteward::testing::signedLicense(
      priv, "scale", "Scale", 50, certsteward::testing::unixTimeIn(std::chrono::hours{24}));
  REQUIRE(http(1)
              .request("POST", "/api/v1/license/activate",
                       json::serialize(json::object{{"license_key", license}}), {auth})
              .status == 200);

  const auto create = [&](HttpClient& client, const std::string& path, const json::object& body,
                          const char* singular) {
    auto r = client.request("POST", path, json::serialize(body), {auth});
    REQUIRE_MESSAGE(r.status == 201, path << " " << r.body);
    return field(parseObject(r).at(singular).as_object(), "id");
  };
  const std::string base =
      "/api/v1/projects/" + create(http(0), "/api/v1/projects", {{"name", "scale"}}, "project");
  create(http(1), base + "/acme-accounts",
         {{"name", "pebble"}, {"directory_url", ca.directoryUrl()}}, "acme_account");
  const std::string credential =
      create(http(2), base + "/dns-credentials",
             {{"name", "bind9"},
              {"provider", "rfc2136"},
              {"settings", json::object{{"server", dns.address()},
                                        {"key_name", Bind9Server::kKey256},
                                        {"algorithm", "hmac-sha256"}}},
              {"secret", Bind9Server::kSecret256}},
             "dns_credential");
  create(http(0), base + "/zones",
         {{"domain", Bind9Server::kZone}, {"dns_credential_id", credential}}, "zone");

  // Never two leaders, sampled on every poll from here on: each live instance's own gauge, read
  // one after another (a sample, not a proof; the lease row in the store is what excludes a
  // second leader, and the contract cases race it directly).
  int mostLeaders = 0;
  const auto leaderIndex = [&]() {
    int found = -1;
    int count = 0;
    for (int i = 0; i < 3; ++i) {
      if (alive[static_cast<std::size_t>(i)] && leads(*instances[static_cast<std::size_t>(i)])) {
        found = i;
        ++count;
      }
    }
    mostLeaders = std::max(mostLeaders, count);
    return found;
  };
  REQUIRE(eventually([&] { return leaderIndex() >= 0; }, 10s));

  // Load: 24 certificates, a third through each instance, posted one after another.
  constexpr int kCertificates = 24;
  std::vector<std::string> certs;
  for (int i = 0; i < kCertificates; ++i) {
    auto posted = http(i % 3).request(
        "POST", base + "/certificates",
        json::serialize(
            json::object{{"common_name", "node" + std::to_string(i) + "." + Bind9Server::kZone}}),
        {auth});
    REQUIRE_MESSAGE(posted.status == 202, posted.body);
    certs.push_back(field(parseObject(posted).at("certificate").as_object(), "id"));
  }

  // Jobs that an instance holds at this moment (active, locked by one of its workers: the
  // worker names carry the instance's port).
  const auto heldBy = [&](const ServerProcess& s, HttpClient& client) {
    std::vector<std::string> held;
    const auto page =
        parseObject(client.request("GET", base + "/jobs?status=active&page_size=100", "", {auth}));
    for (const auto& j : page.at("jobs").as_array()) {
      if (field(j.as_object(), "locked_by").find(":" + portOf(s) + "#") != std::string::npos) {
        held.push_back(field(j.as_object(), "id"));
      }
    }
    return held;
  };
  std::vector<std::string> killedMidAttempt;

  // The leader dies while the issuances run; another takes over within the lease (1 s) and a
  // few heartbeats. Whatever the leader's workers held was cut off mid-attempt.
  const int first = leaderIndex();
  REQUIRE(first >= 0);
  const int witness = (first + 1) % 3;
  instances[static_cast<std::size_t>(first)]->kill9();
  alive[static_cast<std::size_t>(first)] = false;
  const auto killedAt = std::chrono::steady_clock::now();
  for (auto& id : heldBy(*instances[static_cast<std::size_t>(first)], http(witness)))
    killedMidAttempt.push_back(id);
  int second = -1;
  REQUIRE(eventually(
      [&] {
        second = leaderIndex();
        return second >= 0;
      },
      10s));
  const auto takeover = std::chrono::steady_clock::now() - killedAt;
  MESSAGE("leader takeover after SIGKILL: "
          << std::chrono::duration_cast<std::chrono::milliseconds>(takeover).count() << " ms");
  // leader_ttl 1 s, heartbeat 200 ms, polled every 100 ms (about 1 s here); the margin is for a
  // loaded machine.
  CHECK(takeover < 5s);

  // Then the worker that is not the leader dies too, as soon as it holds a job; its jobs finish
  // on the last instance once their locks expire.
  const int survivor = second;
  for (int i = 0; i < 3; ++i) {
    if (!alive[static_cast<std::size_t>(i)] || i == survivor) continue;
    auto& victim = *instances[static_cast<std::size_t>(i)];
    // It usually holds a job at once; if it never does, the leader's jobs still count below.
    (void)eventually([&] { return !heldBy(victim, http(survivor)).empty(); }, 5s);
    victim.kill9();
    alive[static_cast<std::size_t>(i)] = false;
    for (auto& id : heldBy(victim, http(survivor)))
      killedMidAttempt.push_back(id);
  }
  MESSAGE(killedMidAttempt.size() << " job(s) were held by an instance when it was killed");
  REQUIRE_FALSE(killedMidAttempt.empty());
  HttpClient& last = http(survivor);
  const auto statusOf = [&](const std::string& id) {
    return field(parseObject(last.request("GET", base + "/certificates/" + id, "", {auth}))
                     .at("certificate")
                     .as_object(),
                 "status");
  };
  REQUIRE_MESSAGE(eventually(
                      [&] {
                        leaderIndex();
                        for (const auto& id : certs)
                          if (statusOf(id) != "active") return false;
                        return true;
                      },
                      120s),
                  instances[static_cast<std::size_t>(survivor)]->log());

  // Each job cut off mid-attempt was taken again after its lock expired and finished: every
  // killed attempt counts (a job the second victim had taken over from the first has three).
  // (A certificate a killed attempt stored is active before the retry that finds it marks the
  // job done.)
  for (const auto& id : killedMidAttempt) {
    const auto read = [&] {
      return parseObject(last.request("GET", base + "/jobs/" + id, "", {auth}))
          .at("job")
          .as_object();
    };
    (void)eventually([&] { return field(read(), "status") == "completed"; }, 15s);
    const auto job = read();
    CHECK_MESSAGE(field(job, "status") == "completed", json::serialize(job));
    CHECK(job.at("attempts").as_int64() >= 2);
    CHECK(job.at("attempts").as_int64() <= 3);
  }

  // Two new instances join, and renewals run across the three.
  for (int i = 0; i < 3; ++i) {
    if (alive[static_cast<std::size_t>(i)]) continue;
    instances[static_cast<std::size_t>(i)] = std::make_unique<ServerProcess>(env, config);
    clients[static_cast<std::size_t>(i)] =
        std::make_unique<HttpClient>(instances[static_cast<std::size_t>(i)]->baseUrl());
    alive[static_cast<std::size_t>(i)] = true;
  }
  for (int i = 0; i < 3; ++i) {
    const auto renewed = http(i).request(
        "POST", base + "/certificates/" + certs[static_cast<std::size_t>(i)] + "/renew", "",
        {auth});
    REQUIRE_MESSAGE(renewed.status == 202, renewed.body);
  }
  const auto jobsOf = [&](const std::string& id) {
    return parseObject(last.request("GET", base + "/jobs?certificate_id=" + id + "&page_size=100",
                                    "", {auth}))
        .at("jobs")
        .as_array();
  };
  CHECK(eventually(
      [&] {
        leaderIndex();
        for (int i = 0; i < 3; ++i) {
          int done = 0;
          for (const auto& j : jobsOf(certs[static_cast<std::size_t>(i)])) {
            if (field(j.as_object(), "type") == "renew_certificate" &&
                field(j.as_object(), "status") == "completed") {
              ++done;
            }
          }
          if (done != 1) return false;
        }
        return true;
      },
      60s));
  CHECK(mostLeaders == 1);

  // Distributions: three certificates delivered to file targets, each set up through one
  // instance and executed through another.
  constexpr int kDistributed = 3;  // certificates 3, 4 and 5
  for (int i = 0; i < kDistributed; ++i) {
    const std::string cert = certs[static_cast<std::size_t>(3 + i)];
    const auto dir = targets / std::to_string(i);
    std::filesystem::create_directories(dir);
    const std::string module = create(
        http(i), base + "/modules",
        {{"name", "files-" + std::to_string(i)},
         {"module", "file"},
         {"targets", json::array{json::object{
                         {"name", "t"},
                         {"settings", json::object{{"fullchain_path", (dir / "f.pem").string()},
                                                   {"key_path", (dir / "k.pem").string()}}}}}}},
        "module");
    const std::string dists = base + "/certificates/" + cert + "/distributions";
    const std::string dist = create(http((i + 1) % 3), dists,
                                    json::object{{"module_config_id", module}}, "distribution");
    const auto executed =
        http((i + 2) % 3).request("POST", dists + "/" + dist + "/execute", "", {auth});
    REQUIRE_MESSAGE(executed.status == 202, executed.body);
  }
  CHECK(eventually(
      [&] {
        const auto rows =
            parseObject(last.request("GET", base + "/distributions?page_size=100", "", {auth}))
                .at("distributions")
                .as_array();
        int succeeded = 0;
        for (const auto& row : rows)
          succeeded += field(row.as_object(), "last_status") == "succeeded" ? 1 : 0;
        return succeeded == kDistributed;
      },
      30s));
  for (int i = 0; i < kDistributed; ++i) {
    std::ifstream in(targets / std::to_string(i) / "f.pem");
    const std::string pem((std::istreambuf_iterator<char>(in)), {});
    CHECK(pem.find("-----BEGIN CERTIFICATE-----") != std::string::npos);
  }

  // Every job done once: one completed issuance per certificate, one renewal for the first
  // three, one delivery for the next three, nothing left over or dead.
  for (int i = 0; i < kCertificates; ++i) {
    std::map<std::string, int> completed;
    for (const auto& j : jobsOf(certs[static_cast<std::size_t>(i)])) {
      const auto& o = j.as_object();
      const std::string type = field(o, "type");
      if (type == "issue_certificate" || type == "renew_certificate" ||
          type == "distribution_execute") {
        CHECK_MESSAGE(field(o, "status") == "completed", json::serialize(o));
        ++completed[type];
      } else {
        CHECK_MESSAGE(field(o, "status") != "dead", json::serialize(o));
      }
    }
    CHECK(completed["issue_certificate"] == 1);
    CHECK(completed["renew_certificate"] == (i < 3 ? 1 : 0));
    CHECK(completed["distribution_execute"] == (i >= 3 && i < 3 + kDistributed ? 1 : 0));
  }
  const auto verified = last.request("POST", "/api/v1/audit-logs/verify?limit=10000", "", {auth});
  REQUIRE_MESSAGE(verified.status == 200, verified.body);
  const auto v = parseObject(verified);
  CHECK(v.at("intact").as_bool());
  // At least the setup (project, account, credential, zone, licence), the creations and the
  // renewals.
  CHECK(v.at("verified").as_int64() >= 5 + kCertificates + 3);
  for (int i = 0; i < 3; ++i)
    CHECK(instances[static_cast<std::size_t>(i)]->stop() == 0);
  std::filesystem::remove(keyFile);
  std::filesystem::remove_all(targets);
}
