// Distribution through the packaged binary: a certificate issued by a real Pebble (DNS-01
// through bind9) goes over SSH (a real sshd) into the files a real nginx serves, nginx reloaded
// by the module's reload command: a TLS handshake then shows the new serial; a renewal delivers
// the next serial by itself; a rollback serves the previous serial again. A fleet with a failing
// target and auto_rollback_on_failure ends with the good target restored. A dry-run and a
// health check change nothing. All servers on 127.0.0.1, started by the test.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>

#include "e2e/deployment.hpp"
#include "support/nginx_server.hpp"
#include "support/sshd_server.hpp"
#include "support/test_certificates.hpp"
#include "support/tls_probe.hpp"

using namespace certsteward::testing;
namespace json = boost::json;

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The serial nginx serves (lower-case hex), polled until it is `want` (bounded: 10 s) — a
// reload takes effect a moment after the command returns.
std::string servedSerial(const NginxServer& nginx, const std::string& want = {}) {
  std::string serial;
  for (int i = 0; i < 100; ++i) {
    serial = lower(servedLeaf(nginx.port(), "site.example.test").serial);
    if (want.empty() || serial == want) break;
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
  return serial;
}

json::object sshTarget(const std::string& name, const SshdServer& sshd, const NginxServer& nginx,
                       const std::string& credential, const std::string& hostKey) {
  const auto site = nginx.site().string();
  return json::object{{"name", name},
                      {"credential_id", credential},
                      {"settings", json::object{{"host", "127.0.0.1"},
                                                {"port", std::to_string(sshd.port())},
                                                {"cert_path", site + "/cert.pem"},
                                                {"fullchain_path", site + "/fullchain.pem"},
                                                {"key_path", site + "/key.pem"},
                                                {"reload_command", nginx.reloadCommand()},
                                                {"host_key_sha256", hostKey},
                                                {"verify_address", nginx.address()},
                                                {"verify_server_name", "site.example.test"}}}};
}

// The sshd's client key as the project's `ssh_key` credential; its id.
std::string deployKey(Deployment& d, const SshdServer& sshd) {
  return d.created(d.base + "/credentials",
                   json::object{{"name", "deploy key"},
                                {"kind", "ssh_key"},
                                {"username", SshdServer::user()},
                                {"secret", sshd.clientKey()}},
                   "credential");
}

std::string modTimes(const NginxServer& nginx) {
  std::string out;
  for (const char* f : {"cert.pem", "fullchain.pem", "key.pem"}) {
    struct stat st {};
    ::stat((nginx.site() / f).c_str(), &st);
    out += std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
           readLog(nginx.site() / f) + "|";
  }
  return out;
}

}  // namespace

TEST_CASE(
    "distribution e2e: issue, deliver over SSH to nginx, renew delivers the next serial, rollback "
    "serves the previous") {
  SshdServer sshd;
  REQUIRE_MESSAGE(sshd.available(), sshd.reason());
  const auto initial = makeTestMaterial("site.example.test");
  NginxServer nginx(initial);
  REQUIRE_MESSAGE(nginx.available(), nginx.reason());
  Deployment d(0, "distribution.timeout = 10s\n");
  auto& http = *d.http;

  const std::string credential = deployKey(d, sshd);
  const std::string module =
      d.created(d.base + "/modules",
                json::object{{"name", "web"},
                             {"module", "ssh"},
                             {"targets", json::array{sshTarget("web-1", sshd, nginx, credential,
                                                               sshd.hostKeyFingerprint())}}},
                "module");
  const auto ordered = d.order(R"({"common_name":"site.example.test"})");
  const auto first = d.waitFor(ordered.certPath, "active", "");
  const std::string serial1 = lower(field(first, "serial_number"));
  const std::string dists = ordered.certPath + "/distributions";
  const std::string dist =
      d.created(dists, json::object{{"module_config_id", module}}, "distribution");
  const std::string distPath = dists + "/" + dist;

  // Dry-run: a plan, and not a byte or a modification time changed.
  const auto untouched = modTimes(nginx);
  auto plan = http.request("POST", distPath + "/dry-run", "", {d.auth});
  REQUIRE_MESSAGE(plan.status == 200, plan.body);
  const auto planned = parseObject(plan);
  CHECK(planned.at("ok").as_bool());
  const auto& targetPlan = planned.at("target_results").as_array().at(0).as_object();
  CHECK(field(targetPlan, "status") == "ok");
  CHECK(targetPlan.at("changes").as_array().size() == 4);
  CHECK(modTimes(nginx) == untouched);
  CHECK(plan.body.find("PRIVATE KEY") == std::string::npos);

  // Execute: 202 with the job on the distribution lane; nginx then serves the issued serial.
  auto executed = http.request("POST", distPath + "/execute", "", {d.auth});
  REQUIRE_MESSAGE(executed.status == 202, executed.body);
  const auto job = parseObject(executed).at("job").as_object();
  CHECK(field(job, "type") == "distribution_execute");
  d.waitForJob(d.base + "/jobs/" + field(job, "id"), "completed");
  CHECK(servedSerial(nginx, serial1) == serial1);
  auto shown = parseObject(http.request("GET", d.base + "/distributions", "", {d.auth}));
  const auto& row = shown.at("distributions").as_array().at(0).as_object();
  CHECK(field(row, "last_status") == "succeeded");
  CHECK(field(row, "deployed_serial") == field(first, "serial_number"));
  const auto& result = row.at("last_target_results").as_array().at(0).as_object();
  CHECK(field(result, "target_name") == "web-1");
  CHECK(field(result, "status") == "succeeded");
  CHECK(result.at("duration_ms").as_int64() > 0);
  CHECK(shown.at("distributions").as_array().at(0).as_object().if_contains("deployed_sealed") ==
        nullptr);
  auto logs = http.request("GET", d.base + "/jobs/" + field(job, "id") + "/logs", "", {d.auth});
  CHECK(logs.body.find("target web-1: reloaded") != std::string::npos);
  CHECK(logs.body.find("PRIVATE KEY") == std::string::npos);

  // Renew: the new serial reaches nginx by itself (the issuance queues the distribution).
  auto renewed = http.request("POST", ordered.certPath + "/renew", "", {d.auth});
  REQUIRE_MESSAGE(renewed.status == 202, renewed.body);
  const auto second = d.waitFor(ordered.certPath, "active", field(first, "serial_number"));
  const std::string serial2 = lower(field(second, "serial_number"));
  REQUIRE(serial2 != serial1);
  CHECK(servedSerial(nginx, serial2) == serial2);
  json::object cert;
  for (int i = 0; i < 100; ++i) {  // pending clears once delivered (bounded: 20 s)
    cert = parseObject(http.request("GET", ordered.certPath, "", {d.auth}))
               .at("certificate")
               .as_object();
    if (!cert.at("distribution_pending").as_bool()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds{200});
  }
  CHECK_FALSE(cert.at("distribution_pending").as_bool());

  // The delivery job of the renewal finishes (a rollback is refused while one is unfinished).
  bool settled = false;
  for (int i = 0; i < 100 && !settled; ++i) {  // bounded: 20 s
    const auto jobs = parseObject(http.request(
        "GET", d.base + "/jobs?type=distribution_execute&page_size=100", "", {d.auth}));
    settled =
        std::all_of(jobs.at("jobs").as_array().begin(), jobs.at("jobs").as_array().end(),
                    [](const json::value& j) {
                      const auto status = field(j.as_object(), "status");
                      return status == "completed" || status == "dead" || status == "cancelled";
                    });
    if (!settled) std::this_thread::sleep_for(std::chrono::milliseconds{200});
  }
  REQUIRE(settled);

  // Rollback: the previous serial is served again; a second rollback has nothing to restore.
  auto rolled = http.request("POST", distPath + "/rollback", "", {d.auth});
  REQUIRE_MESSAGE(rolled.status == 202, rolled.body);
  const auto rollbackJob = parseObject(rolled).at("job").as_object();
  CHECK(field(rollbackJob, "type") == "distribution_rollback");
  d.waitForJob(d.base + "/jobs/" + field(rollbackJob, "id"), "completed");
  CHECK(servedSerial(nginx, serial1) == serial1);
  auto again = http.request("POST", distPath + "/rollback", "", {d.auth});
  CHECK(again.status == 409);
  CHECK(again.body.find("already rolled back") != std::string::npos);

  auto health = http.request("POST", d.base + "/modules/" + module + "/health", "", {d.auth});
  REQUIRE_MESSAGE(health.status == 200, health.body);
  CHECK(parseObject(health).at("healthy").as_bool());
  CHECK(http.request("GET", "/metrics", "")
            .body.find("certsteward_distribution_targets_total{action=\"execute\",module=\"ssh\","
                       "outcome=\"succeeded\"}") != std::string::npos);
}

TEST_CASE(
    "distribution e2e: a failing target rolls the good one back, and hostile settings are "
    "refused") {
  SshdServer sshd;
  REQUIRE_MESSAGE(sshd.available(), sshd.reason());
  const auto initial = makeTestMaterial("site.example.test");
  NginxServer good(initial);
  NginxServer other(initial);
  REQUIRE_MESSAGE(good.available(), good.reason());
  REQUIRE_MESSAGE(other.available(), other.reason());
  const auto allowed = freshServerDir("file-targets");
  Deployment d(
      0, "distribution.timeout = 10s\ndistribution.file_directories = " + allowed.string() + "\n");
  auto& http = *d.http;
  const std::string credential = deployKey(d, sshd);

  // Hostile or mistaken settings: 422 naming the setting, nothing stored.
  const auto refused = [&](json::object target) {
    auto r =
        http.request("POST", d.base + "/modules",
                     json::serialize(json::object{
                         {"name", "bad"}, {"module", "ssh"}, {"targets", json::array{target}}}),
                     {d.auth});
    CHECK_MESSAGE(r.status == 422, r.body);
    return r.body;
  };
  auto hostile = sshTarget("t", sshd, good, credential, sshd.hostKeyFingerprint());
  hostile["settings"].as_object()["key_path"] = "/etc/ssl/../shadow";
  CHECK(refused(hostile).find("key_path") != std::string::npos);
  hostile["settings"].as_object()["key_path"] = "relative/key.pem";
  CHECK(refused(hostile).find("key_path") != std::string::npos);
  hostile["settings"].as_object()["key_path"] = std::string("/etc/ssl/k\0ey", 12);
  CHECK(refused(hostile).find("control characters") != std::string::npos);
  // A file target inside the allowed directory, with a command the operator did not allow.
  const auto fileTarget = [&](const std::string& command) {
    return json::serialize(json::object{
        {"name", "local"},
        {"module", "file"},
        {"targets", json::array{json::object{
                        {"name", "t"},
                        {"settings", json::object{{"fullchain_path", (allowed / "f.pem").string()},
                                                  {"key_path", (allowed / "k.pem").string()},
                                                  {"reload_command", command}}}}}}});
  };
  auto file = http.request("POST", d.base + "/modules", fileTarget("/bin/sh"), {d.auth});
  CHECK(file.status == 422);
  CHECK(file.body.find("reload_command") != std::string::npos);
  auto target = http.request(
      "POST", d.base + "/modules",
      R"({"name":"t","module":"ssh","targets":[{"name":"a\nb","settings":{}}]})", {d.auth});
  CHECK(target.status == 422);
  CHECK(
      parseObject(http.request("GET", d.base + "/modules", "", {d.auth})).at("total").as_int64() ==
      0);

  // Two targets, the second with a wrong host key, auto_rollback_on_failure on.
  const std::string module =
      d.created(d.base + "/modules",
                json::object{{"name", "fleet"},
                             {"module", "ssh"},
                             {"auto_rollback_on_failure", true},
                             {"targets", json::array{sshTarget("good", sshd, good, credential,
                                                               sshd.hostKeyFingerprint()),
                                                     sshTarget("bad", sshd, other, credential,
                                                               "SHA256:" + std::string(43, 'Q'))}}},
                "module");
  const auto ordered = d.order(R"({"common_name":"site.example.test"})");
  d.waitFor(ordered.certPath, "active", "");
  const std::string dists = ordered.certPath + "/distributions";
  const std::string dist =
      d.created(dists, json::object{{"module_config_id", module}}, "distribution");
  const std::string before = readLog(good.site() / "fullchain.pem");
  auto executed = http.request("POST", dists + "/" + dist + "/execute", "", {d.auth});
  REQUIRE(executed.status == 202);
  const std::string jobPath =
      d.base + "/jobs/" + field(parseObject(executed).at("job").as_object(), "id");
  json::object row;
  for (int i = 0; i < 150; ++i) {  // bounded: 30 s
    row = parseObject(http.request("GET", d.base + "/distributions", "", {d.auth}))
              .at("distributions")
              .as_array()
              .at(0)
              .as_object();
    // "in_progress" while the run is under way (on record before any target is touched).
    if (field(row, "last_status") != "never_run" && field(row, "last_status") != "in_progress")
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds{200});
  }
  CHECK(field(row, "last_status") == "failed");
  const auto& results = row.at("last_target_results").as_array();
  REQUIRE(results.size() == 2);
  CHECK(field(results[0].as_object(), "status") == "succeeded");
  CHECK(results[0].as_object().at("rolled_back").as_bool());
  CHECK(field(results[1].as_object(), "error_code") == "HOST_KEY_MISMATCH");
  CHECK(readLog(good.site() / "fullchain.pem") == before);
  CHECK(servedLeafSoon(good.port(), initial.certificate_pem, "site.example.test") ==
        initial.certificate_pem);
  CHECK(readLog(other.site() / "fullchain.pem") == initial.certificate_pem + initial.chain_pem);
  auto events = http.request("GET", d.base + "/events", "", {d.auth});
  CHECK(events.body.find("distribution.failed") != std::string::npos);
  (void)jobPath;
  std::filesystem::remove_all(allowed);
}
