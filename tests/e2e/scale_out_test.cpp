// Several instances of the packaged binary on one SQLite file: one scheduler leader, which
// moves when the leader stops; and an instance killed in the middle of an issuance, whose job
// another instance finishes once the dead one's lock has expired.
#include <doctest/doctest.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/json.hpp>

#include <chrono>
#include <filesystem>
#include <map>
#include <thread>

#include "e2e/http_client.hpp"
#include "e2e/json_polling.hpp"
#include "e2e/server_process.hpp"
#include "support/bind9_server.hpp"
#include "support/free_port.hpp"
#include "support/pebble_server.hpp"

using namespace certsteward::testing;
namespace json = boost::json;

namespace {

const std::map<std::string, std::string> kOwnerEnv{
    {"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", "root"},
    {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", "correct horse battery"}};

struct SharedFile {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("certsteward-shared-" + std::to_string(::getpid()));
  SharedFile() { std::filesystem::create_directories(dir); }
  ~SharedFile() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  std::string config() const {
    return "store.url = sqlite://" + (dir / "db.sqlite").string() + "\n";
  }
};

}  // namespace

TEST_CASE("scale-out: one scheduler leader among instances, and it moves when the leader stops") {
  SharedFile shared;
  const std::string config = shared.config() +
                             "scheduler.heartbeat = 200ms\nscheduler.leader_ttl = 1s\n"
                             "scheduler.interval = 1s\n";
  auto a = std::make_unique<ServerProcess>(kOwnerEnv, config);
  auto b = std::make_unique<ServerProcess>(kOwnerEnv, config);
  const auto leads = [](const ServerProcess& s) {
    return s.log().find(" leads") != std::string::npos;
  };
  REQUIRE(eventually([&] { return leads(*a) || leads(*b); }, std::chrono::seconds{5}));
  std::this_thread::sleep_for(std::chrono::milliseconds{600});  // three heartbeats later
  CHECK(leads(*a) != leads(*b));                                // exactly one
  auto& leader = leads(*a) ? a : b;
  auto& standby = leads(*a) ? b : a;
  CHECK(leader->stop() == 0);  // resigns on the way out
  CHECK(eventually([&] { return leads(*standby); }, std::chrono::seconds{5}));
}

namespace {

enum class Stop {
  graceful,           // SIGTERM past worker.shutdown_wait: the job is returned
  killed,             // SIGKILL; another instance takes the job when its lock expires
  killedAndRestarted  // SIGKILL; the same instance (host and listener) starts again at once
};

// An instance stops in the middle of an issuance — killed (SIGKILL) or stopped (SIGTERM past
// worker.shutdown_wait) — while its attempt hangs on a DNS server that never answers; a second
// instance, or the same one started again, then finishes the job.
void crashMidIssuance(Stop how) {
  const bool graceful = how == Stop::graceful;
  Bind9Server dns;
  REQUIRE_MESSAGE(dns.available(), dns.reason());
  PebbleServer ca(PebbleOptions{dns.address(), {}, 0});
  REQUIRE_MESSAGE(ca.available(), ca.reason());
  // A DNS server that never answers: the first attempt hangs in the update until dns.timeout.
  const int silent = ::socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  REQUIRE(::bind(silent, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::getsockname(silent, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  const std::string silentServer = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));

  SharedFile shared;
  // Restarted in place: the same listener, and a lock that would hold for 5 minutes, so only
  // the release at start can explain a quick finish.
  const std::string config =
      shared.config() +
      (how == Stop::killedAndRestarted
           ? "server.listen = 127.0.0.1:" + std::to_string(freeLoopbackPort()) +
                 "\nworker.lock_ttl = 5m\n"
           : std::string("worker.lock_ttl = 2s\n")) +
      "worker.enabled = true\n"
      "worker.poll_interval = 200ms\n"
      "worker.shutdown_wait = 500ms\n"
      "dns.timeout = 4s\ndns.poll_interval = 50ms\ndns.resolvers = " +
      dns.address() +
      "\n"
      "acme.poll_interval = 100ms\nacme.ca_bundle = " +
      ca.caFile() + "\n";
  auto a = std::make_unique<ServerProcess>(kOwnerEnv, config);
  HttpClient httpA(a->baseUrl());
  auto login = httpA.request("POST", "/api/v1/auth/login",
                             R"({"username":"root","password":"correct horse battery"})");
  REQUIRE(login.status == 200);
  const std::string auth = "Authorization: Bearer " + field(parseObject(login), "access_token");
  const auto create = [&](HttpClient& http, const std::string& path, const json::object& body,
                          const char* singular) {
    auto r = http.request("POST", path, json::serialize(body), {auth});
    REQUIRE_MESSAGE(r.status == 201, path << " " << r.body);
    return field(parseObject(r).at(singular).as_object(), "id");
  };
  const std::string base =
      "/api/v1/projects/" + create(httpA, "/api/v1/projects", {{"name", "crash"}}, "project");
  create(httpA, base + "/acme-accounts", {{"name", "pebble"}, {"directory_url", ca.directoryUrl()}},
         "acme_account");
  const auto settings = [&](const std::string& server) {
    return json::object{
        {"server", server}, {"key_name", Bind9Server::kKey256}, {"algorithm", "hmac-sha256"}};
  };
  const std::string credential = create(httpA, base + "/dns-credentials",
                                        {{"name", "bind9"},
                                         {"provider", "rfc2136"},
                                         {"settings", settings(silentServer)},
                                         {"secret", Bind9Server::kSecret256}},
                                        "dns_credential");
  create(httpA, base + "/zones",
         {{"domain", Bind9Server::kZone}, {"dns_credential_id", credential}}, "zone");
  auto posted = httpA.request("POST", base + "/certificates",
                              R"({"common_name":"crash.example.test"})", {auth});
  REQUIRE(posted.status == 202);
  const auto body = parseObject(posted);
  const std::string certPath =
      base + "/certificates/" + field(body.at("certificate").as_object(), "id");
  const std::string jobPath = base + "/jobs/" + field(body.at("job").as_object(), "id");
  const auto jobStatus = [&](HttpClient& http) {
    return field(parseObject(http.request("GET", jobPath, "", {auth})).at("job").as_object(),
                 "status");
  };
  REQUIRE(eventually([&] { return jobStatus(httpA) == "active"; }, std::chrono::seconds{10}));
  std::this_thread::sleep_for(std::chrono::milliseconds{300});
  // The running attempt keeps the silent server it started with; the next one uses bind9 (a
  // new server address takes the secret again).
  REQUIRE(httpA
              .request("PATCH", base + "/dns-credentials/" + credential,
                       json::serialize(json::object{{"settings", settings(dns.address())},
                                                    {"secret", Bind9Server::kSecret256}}),
                       {auth})
              .status == 200);
  if (graceful) {
    // SIGTERM: 500 ms of shutdown wait, then the job goes back to pending and the process exits
    // cleanly (ServerProcess::stop gives it 10 s before SIGKILL, which would read 137).
    REQUIRE(a->stop() == 0);
    CHECK(a->log().find("returning them to pending") != std::string::npos);
  } else {
    a->kill9();  // mid-attempt: waiting on the silent DNS server, holding the job's lock
  }

  auto b = std::make_unique<ServerProcess>(kOwnerEnv, config);
  HttpClient httpB(b->baseUrl());
  if (how == Stop::killed) CHECK(jobStatus(httpB) == "active");  // held by the dead one's lock
  REQUIRE_MESSAGE(eventually(
                      [&] {
                        return field(parseObject(httpB.request("GET", certPath, "", {auth}))
                                         .at("certificate")
                                         .as_object(),
                                     "status") == "active";
                      },
                      std::chrono::seconds{30}),
                  b->log());
  // The job completes just after the certificate is stored (its cert.issued event between).
  CHECK(eventually([&] { return jobStatus(httpB) == "completed"; }, std::chrono::seconds{10}));
  const auto job = parseObject(httpB.request("GET", jobPath, "", {auth})).at("job").as_object();
  // A killed attempt counts (its worker could not say otherwise); a released one does not.
  CHECK(job.at("attempts").as_int64() == (graceful ? 1 : 2));
  if (graceful) {
    const auto logs = httpB.request("GET", jobPath + "/logs?page_size=100", "", {auth});
    CHECK(logs.body.find("the attempt is not counted") != std::string::npos);
  }
  if (how == Stop::killedAndRestarted) {
    CHECK(b->log().find("released 1 job(s) that an earlier run of this instance held") !=
          std::string::npos);
  }
  CHECK(b->stop() == 0);
  ::close(silent);
}

}  // namespace

TEST_CASE("scale-out: an instance killed mid-issuance, another finishes the job after the lock") {
  crashMidIssuance(Stop::killed);
}

TEST_CASE(
    "scale-out: an instance killed mid-issuance and started again releases its job at once, not "
    "after the lock") {
  crashMidIssuance(Stop::killedAndRestarted);
}

TEST_CASE("scale-out: an instance stopped mid-issuance returns the job, another finishes it") {
  crashMidIssuance(Stop::graceful);
}
