// The whole path through the packaged binary: a certificate created over the API is issued by a
// real Pebble, validated through a real bind9 updated with RFC 2136 + TSIG, becomes active with
// a chain that verifies, and a manual renewal gives a new serial. All servers on 127.0.0.1,
// started by the test.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

#include "e2e/deployment.hpp"
#include "support/acme_standin_proxy.hpp"

using namespace certsteward::testing;
namespace json = boost::json;

TEST_CASE("issuance e2e: the ACME account validates and the DNS credential test passes") {
  Deployment d(0);
  auto accounts = parseObject(d.http->request("GET", d.base + "/acme-accounts", "", {d.auth}));
  const auto accountId = field(accounts.at("acme_accounts").as_array().at(0).as_object(), "id");
  auto validated =
      d.http->request("POST", d.base + "/acme-accounts/" + accountId + "/validate", "", {d.auth});
  REQUIRE_MESSAGE(validated.status == 200, validated.body);
  const auto account = parseObject(validated).at("acme_account").as_object();
  CHECK(field(account, "status") == "valid");
  CHECK(account.at("is_registered").as_bool());
  CHECK_FALSE(field(account, "last_validated_at").empty());
  CHECK(validated.body.find("PRIVATE") == std::string::npos);

  // Key rollover: the CA binds the account to a new key; orders signed with it go through (the
  // old key, still under the same account URL, would be refused).
  auto rolled = d.http->request("POST", d.base + "/acme-accounts/" + accountId + "/rollover-key",
                                "", {d.auth});
  REQUIRE_MESSAGE(rolled.status == 200, rolled.body);
  CHECK(rolled.body.find("PRIVATE") == std::string::npos);
  auto posted = d.http->request("POST", d.base + "/certificates",
                                R"({"common_name":"rolled.example.test"})", {d.auth});
  REQUIRE_MESSAGE(posted.status == 202, posted.body);
  const auto issued = d.waitFor(
      d.base + "/certificates/" + field(parseObject(posted).at("certificate").as_object(), "id"),
      "active", "");
  CHECK_FALSE(field(issued, "serial_number").empty());
  auto audit =
      d.http->request("GET", "/api/v1/audit-logs?action=acme_account.key_rollover", "", {d.auth});
  CHECK(audit.body.find("acme_account.key_rollover") != std::string::npos);

  auto credentials = parseObject(d.http->request("GET", d.base + "/dns-credentials", "", {d.auth}));
  const auto credentialId =
      field(credentials.at("dns_credentials").as_array().at(0).as_object(), "id");
  auto tested =
      d.http->request("POST", d.base + "/dns-credentials/" + credentialId + "/test", "", {d.auth});
  REQUIRE_MESSAGE(tested.status == 200, tested.body);
  const auto report = parseObject(tested);
  CHECK_MESSAGE(report.at("ok").as_bool(), tested.body);
  CHECK(report.at("steps").as_array().size() == 3);
  CHECK(tested.body.find(Bind9Server::kSecret256) == std::string::npos);
}

TEST_CASE("issuance e2e: POST a certificate, it becomes active through Pebble and bind9") {
  Deployment d(0);
  auto& http = *d.http;
  const auto& auth = d.auth;
  const auto& base = d.base;
  auto& ca = *d.ca;

  auto posted = http.request(
      "POST", base + "/certificates",
      R"({"common_name":"shop.example.test","sans":["*.shop.example.test"],"key_type":"ecdsa_p384"})",
      {auth});
  REQUIRE_MESSAGE(posted.status == 202, posted.body);
  const std::string certId = field(parseObject(posted).at("certificate").as_object(), "id");
  const std::string certPath = base + "/certificates/" + certId;
  const auto active = d.waitFor(certPath, "active", "");
  const std::string serial = field(active, "serial_number");
  CHECK_FALSE(serial.empty());
  CHECK_FALSE(field(active, "expires_at").empty());
  CHECK_FALSE(field(active, "next_renewal_at").empty());
  CHECK(field(active, "last_error").empty());

  auto pem = http.request("GET", certPath + "/download", "", {auth});
  REQUIRE(pem.status == 200);
  const auto cut = pem.body.find("-----END CERTIFICATE-----") + 26;
  CHECK(chainVerifies(pem.body.substr(0, cut), pem.body.substr(cut), ca.managementGet("/roots/0")));

  // The job log tells the story (the job completes just after the certificate is stored).
  json::object jobs;
  for (int i = 0; i < 50; ++i) {
    jobs = parseObject(http.request("GET", base + "/jobs", "", {auth}));
    if (field(jobs.at("jobs").as_array().at(0).as_object(), "status") == "completed") break;
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
  const auto& job = jobs.at("jobs").as_array().at(0).as_object();
  CHECK(field(job, "status") == "completed");
  auto logs = http.request("GET", base + "/jobs/" + field(job, "id") + "/logs", "", {auth});
  CHECK(logs.body.find("issued: serial") != std::string::npos);

  // Manual renewal: a new serial.
  REQUIRE(http.request("POST", certPath + "/renew", "", {auth}).status == 202);
  const auto renewed = d.waitFor(certPath, "active", serial);
  CHECK(field(renewed, "serial_number") != serial);

  // The zone's CA quotas: two orders and two certificates under example.test at Pebble's
  // directory, against the limit configured for it.
  auto quotas = http.request("GET", base + "/zones/" + d.zoneId + "/rate-limits", "", {auth});
  REQUIRE_MESSAGE(quotas.status == 200, quotas.body);
  const auto report = parseObject(quotas);
  CHECK(field(report, "registered_domain") == "example.test");
  REQUIRE(report.at("directories").as_array().size() == 1);
  const auto& pebbleQuota = report.at("directories").as_array()[0].as_object();
  CHECK(field(pebbleQuota, "directory_url") == ca.directoryUrl());
  CHECK(field(pebbleQuota, "limits_source") == "configured");
  const auto& certificates = pebbleQuota.at("certificates").as_object();
  CHECK(certificates.at("used").as_int64() == 2);
  CHECK(certificates.at("limit").as_int64() == 20);
  CHECK(certificates.at("remaining").as_int64() == 18);
  CHECK(certificates.at("window_seconds").as_int64() == 7 * 24 * 3600);
  CHECK(pebbleQuota.at("orders").as_object().at("used").as_int64() == 2);
  CHECK(pebbleQuota.at("orders").as_object().at("limit").is_null());
  CHECK(pebbleQuota.at("failed_validations").as_object().at("used").as_int64() == 0);
  CHECK(pebbleQuota.at("last_rate_limited").is_null());

  // What Prometheus sees: the attempts by outcome, the issuance latency, jobs by lane.
  const auto metrics = http.request("GET", "/metrics", "", {});
  REQUIRE(metrics.status == 200);
  CHECK(metrics.body.find("certsteward_job_attempts_total{lane=\"default\",outcome=\"succeeded\","
                          "type=\"issue_certificate\"} 1\n") != std::string::npos);
  CHECK(metrics.body.find("certsteward_job_attempts_total{lane=\"default\",outcome=\"succeeded\","
                          "type=\"renew_certificate\"} 1\n") != std::string::npos);
  CHECK(metrics.body.find("certsteward_issuance_latency_seconds_count{type=\"issue_certificate\"} "
                          "1\n") != std::string::npos);
  CHECK(metrics.body.find("certsteward_job_attempt_duration_seconds_bucket{type=\"renew_"
                          "certificate\",le=\"+Inf\"} 1\n") != std::string::npos);
  CHECK(metrics.body.find("certsteward_jobs{lane=\"default\",status=\"completed\",type=\"issue_"
                          "certificate\"} 1\n") != std::string::npos);
  CHECK(d.server->stop() == 0);
}

TEST_CASE("issuance e2e: with short-lived certificates the scheduler renews on its own") {
  // Pebble issues for 10 minutes; renewing with 99% of the lifetime left makes it due after six
  // seconds. (A 1-day threshold, longer than the lifetime, renews at a third left instead: never
  // at once, again and again.)
  Deployment d(600, "scheduler.interval = 1s\nscheduler.heartbeat = 200ms\n");
  auto posted =
      d.http->request("POST", d.base + "/certificates",
                      R"({"common_name":"auto.example.test","renew_at_fraction":0.99})", {d.auth});
  REQUIRE_MESSAGE(posted.status == 202, posted.body);
  const std::string certPath =
      d.base + "/certificates/" + field(parseObject(posted).at("certificate").as_object(), "id");
  const auto first = d.waitFor(certPath, "active", "");
  // Due with 99% of its 600 s left: six seconds after it was issued.
  const auto issuedAt = *certsteward::domain::parseTimestamp(field(first, "issued_at"));
  const auto due = *certsteward::domain::parseTimestamp(field(first, "next_renewal_at"));
  CHECK(due - issuedAt < std::chrono::seconds{30});
  const auto renewed = d.waitFor(certPath, "active", field(first, "serial_number"));
  CHECK(field(renewed, "serial_number") != field(first, "serial_number"));
  // No manual renew was asked for: the renewal job came from the scheduler, under its key.
  auto jobs =
      parseObject(d.http->request("GET", d.base + "/jobs?type=renew_certificate", "", {d.auth}));
  REQUIRE_FALSE(jobs.at("jobs").as_array().empty());
  CHECK(d.server->log().find("scheduler:") != std::string::npos);
  const auto metrics = d.http->request("GET", "/metrics", "", {});
  CHECK(metrics.body.find("certsteward_scheduler_leader 1\n") != std::string::npos);
  CHECK(metrics.body.find("certsteward_scheduler_sweeps_total{result=\"ok\"}") !=
        std::string::npos);
  CHECK(metrics.body.find("certsteward_scheduler_sweep_duration_seconds_count") !=
        std::string::npos);
  CHECK(metrics.body.find("certsteward_scheduler_renewals_queued_total") != std::string::npos);
  CHECK(d.server->stop() == 0);
}

TEST_CASE("issuance e2e: a wrong TSIG key fails with backoff to dead, retry after the fix works") {
  Deployment d(0,
               "worker.max_attempts = 3\nworker.backoff_base = 100ms\nworker.backoff_cap = 1s\n");
  auto& http = *d.http;
  auto credentials = parseObject(http.request("GET", d.base + "/dns-credentials", "", {d.auth}));
  const auto credentialPath =
      d.base + "/dns-credentials/" +
      field(credentials.at("dns_credentials").as_array().at(0).as_object(), "id");
  const std::string wrongSecret = R"({"secret":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="})";
  REQUIRE(http.request("PATCH", credentialPath, wrongSecret, {d.auth}).status == 200);

  const auto [certPath, jobPath] = d.order(R"({"common_name":"fail.example.test"})");
  const auto job = d.waitForJob(jobPath, "dead");
  CHECK(job.at("attempts").as_int64() == 3);
  CHECK(field(job, "error_msg").find("TSIG") != std::string::npos);
  const auto stuck =
      parseObject(http.request("GET", certPath, "", {d.auth})).at("certificate").as_object();
  CHECK(field(stuck, "status") == "issuing");
  CHECK(field(stuck, "last_error").find("TSIG") != std::string::npos);
  auto logs = http.request("GET", jobPath + "/logs?page_size=100", "", {d.auth});
  CHECK(logs.body.find("attempt 3 of 3") != std::string::npos);
  CHECK(logs.body.find("no attempts left") != std::string::npos);
  CHECK(logs.body.find("AAAAAAAAAAAAAAAA") == std::string::npos);  // no secret in the log

  // The fix, then a retry: issued.
  const std::string rightSecret =
      json::serialize(json::object{{"secret", Bind9Server::kSecret256}});
  REQUIRE(http.request("PATCH", credentialPath, rightSecret, {d.auth}).status == 200);
  auto retried = http.request("POST", jobPath + "/retry", "", {d.auth});
  REQUIRE_MESSAGE(retried.status == 200, retried.body);
  const auto active = d.waitFor(certPath, "active", "");
  CHECK(field(active, "last_error").empty());
  d.waitForJob(jobPath, "completed");

  // A renewal that keeps failing ends renewal_failed, flagged, with the CA or DNS reason (through
  // a new account, so that it meets the DNS).
  d.moveToFreshAccount(certPath);
  REQUIRE(http.request("PATCH", credentialPath, wrongSecret, {d.auth}).status == 200);
  REQUIRE(http.request("POST", certPath + "/renew", "", {d.auth}).status == 202);
  const auto failed = d.waitFor(certPath, "renewal_failed", "");
  CHECK(failed.at("failed_renewal").as_bool());
  CHECK(field(failed, "last_error").find("TSIG") != std::string::npos);
  CHECK(field(failed, "serial_number") == field(active, "serial_number"));  // the old one serves

  // The events recorded on the way, newest first: the dead issuance job, the issuance after the
  // fix, then the dead renewal job and the failed renewal (these two in either order: same
  // instant possible).
  const auto events =
      parseObject(http.request("GET", d.base + "/events?page_size=100", "", {d.auth}));
  const auto& list = events.at("events").as_array();
  REQUIRE_MESSAGE(list.size() == 4, json::serialize(events));
  std::multimap<std::string, std::string> byKind;  // kind -> resource_id
  for (const auto& e : list) {
    byKind.emplace(field(e.as_object(), "kind"), field(e.as_object(), "resource_id"));
    if (field(e.as_object(), "kind") != "cert.issued") {
      CHECK(field(e.as_object(), "message").find("TSIG") != std::string::npos);
    }
    CHECK(field(e.as_object(), "message").find("AAAAAAAAAAAAAAAA") == std::string::npos);
  }
  CHECK(byKind.count("job.failed") == 2);
  CHECK(byKind.count("cert.issued") == 1);
  REQUIRE(byKind.count("cert.renewal_failed") == 1);
  CHECK(byKind.find("cert.renewal_failed")->second == field(failed, "id"));
  CHECK(field(list.back().as_object(), "resource_id") == field(job, "id"));  // the oldest
  CHECK(d.server->stop() == 0);
}

TEST_CASE("issuance e2e: a certificate issued through an operator's exec DNS hook") {
  // The operator allows one hook; its content (nsupdate against this run's bind9) is written once
  // bind9's port is known.
  const auto hook = std::filesystem::temp_directory_path() /
                    ("certsteward-e2e-hook-" + std::to_string(::getpid()));
  std::ofstream(hook) << "#!/bin/sh\nexit 1\n";
  std::filesystem::permissions(hook, std::filesystem::perms::owner_all);
  Deployment d(0, "dns.exec_commands = " + hook.string() + "\n");
  std::ofstream(hook, std::ios::trunc)
      << "#!/bin/sh\nset -eu\n"
      << "case \"$1\" in present) op=add ;; cleanup) op=delete ;; *) exit 2 ;; esac\n"
      << "nsupdate -t 3 -y \"hmac-sha256:" << Bind9Server::kKey256
      << ":$CERTSTEWARD_DNS_SECRET\" <<END\nserver 127.0.0.1 " << d.dns.port()
      << "\nzone $CERTSTEWARD_DNS_ZONE\nupdate $op $2 $CERTSTEWARD_DNS_TTL TXT \"$3\"\nsend\nEND\n";
  auto& http = *d.http;
  auto credentials = parseObject(http.request("GET", d.base + "/dns-credentials", "", {d.auth}));
  const auto credentialPath =
      d.base + "/dns-credentials/" +
      field(credentials.at("dns_credentials").as_array().at(0).as_object(), "id");
  // Another provider takes the secret again: the stored one is not handed on by itself.
  auto unsealed = http.request(
      "PATCH", credentialPath,
      json::serialize(json::object{{"provider", "exec"},
                                   {"settings", json::object{{"command", hook.string()}}}}),
      {d.auth});
  CHECK(unsealed.status == 422);
  CHECK(field(parseObject(unsealed), "field") == "provider");
  // A command the operator did not list is refused when saved, naming the setting.
  auto other =
      http.request("PATCH", credentialPath,
                   json::serialize(json::object{{"provider", "exec"},
                                                {"settings", json::object{{"command", "/bin/sh"}}},
                                                {"secret", Bind9Server::kSecret256}}),
                   {d.auth});
  REQUIRE(other.status == 422);
  CHECK(field(parseObject(other), "field") == "settings.command");
  CHECK(other.body.find("dns.exec_commands") != std::string::npos);

  auto patched = http.request(
      "PATCH", credentialPath,
      json::serialize(json::object{{"provider", "exec"},
                                   {"settings", json::object{{"command", hook.string()},
                                                             {"check_servers", d.dns.address()}}},
                                   {"secret", Bind9Server::kSecret256}}),
      {d.auth});
  REQUIRE_MESSAGE(patched.status == 200, patched.body);
  auto tested = http.request("POST", credentialPath + "/test", "", {d.auth});
  CHECK_MESSAGE(parseObject(tested).at("ok").as_bool(), tested.body);
  auto posted = http.request("POST", d.base + "/certificates",
                             R"({"common_name":"hooked.example.test"})", {d.auth});
  REQUIRE(posted.status == 202);
  const auto active = d.waitFor(
      d.base + "/certificates/" + field(parseObject(posted).at("certificate").as_object(), "id"),
      "active", "");
  CHECK_FALSE(field(active, "serial_number").empty());
  CHECK(d.server->stop() == 0);
  std::filesystem::remove(hook);
}

TEST_CASE("issuance e2e: an unreachable CA fails with backoff to dead, retry after the fix works") {
  Deployment d(0,
               "worker.max_attempts = 2\nworker.backoff_base = 100ms\nworker.backoff_cap = 1s\n"
               "acme.request_timeout = 2s\n");
  auto& http = *d.http;
  // An account whose CA does not answer: nothing listens on this port.
  const std::string account = d.created(
      d.base + "/acme-accounts",
      json::object{{"name", "gone"}, {"directory_url", "https://127.0.0.1:1/dir"}}, "acme_account");
  const auto [certPath, jobPath] = d.order(json::serialize(
      json::object{{"common_name", "unreached.example.test"}, {"acme_account_id", account}}));
  const auto job = d.waitForJob(jobPath, "dead");
  CHECK(job.at("attempts").as_int64() == 2);
  CHECK(field(job, "error_msg").find("could not connect") != std::string::npos);
  const auto stuck =
      parseObject(http.request("GET", certPath, "", {d.auth})).at("certificate").as_object();
  CHECK(field(stuck, "last_error").find("could not connect") != std::string::npos);
  auto events = http.request("GET", d.base + "/events", "", {d.auth});
  CHECK(events.body.find("job.failed") != std::string::npos);

  // The account pointed at the real CA, then a retry: issued.
  REQUIRE(http.request("PATCH", d.base + "/acme-accounts/" + account,
                       json::serialize(json::object{{"directory_url", d.ca->directoryUrl()}}),
                       {d.auth})
              .status == 200);
  REQUIRE(http.request("POST", jobPath + "/retry", "", {d.auth}).status == 200);
  const auto active = d.waitFor(certPath, "active", "");
  CHECK(field(active, "last_error").empty());
  CHECK(d.server->stop() == 0);
}

TEST_CASE(
    "issuance e2e: a CA that requires External Account Binding — refused without, issues with") {
  const std::string kid = "kid-e2e";
  const std::string mac = certsteward::domain::base64UrlEncode(std::string(32, 'k'));
  Deployment d(0, "", {{kid, mac}});
  auto& http = *d.http;
  // The deployment's own account has no EAB: the CA refuses it, and says why.
  auto accounts = parseObject(http.request("GET", d.base + "/acme-accounts", "", {d.auth}));
  const auto plain = field(accounts.at("acme_accounts").as_array().at(0).as_object(), "id");
  auto refused =
      http.request("POST", d.base + "/acme-accounts/" + plain + "/validate", "", {d.auth});
  CHECK(refused.status == 409);
  CHECK(refused.body.find("externalAccountRequired") != std::string::npos);

  const std::string account = d.created(d.base + "/acme-accounts",
                                        json::object{{"name", "with eab"},
                                                     {"directory_url", d.ca->directoryUrl()},
                                                     {"eab_kid", kid},
                                                     {"eab_hmac_key", mac}},
                                        "acme_account");
  auto validated =
      http.request("POST", d.base + "/acme-accounts/" + account + "/validate", "", {d.auth});
  REQUIRE_MESSAGE(validated.status == 200, validated.body);
  CHECK(validated.body.find(mac) == std::string::npos);
  const auto [certPath, jobPath] = d.order(json::serialize(
      json::object{{"common_name", "eab.example.test"}, {"acme_account_id", account}}));
  const auto active = d.waitFor(certPath, "active", "");
  CHECK_FALSE(field(active, "serial_number").empty());
  CHECK(d.server->stop() == 0);
}

namespace {

// Serials as one number: upper case, no separators, no leading zeros.
std::string sameSerial(const std::string& serial) {
  std::string out;
  for (const char c : serial) {
    if (std::isxdigit(static_cast<unsigned char>(c)) == 0 || (out.empty() && c == '0')) continue;
    out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return out;
}

// `openssl s_client` handshaking with 127.0.0.1:<port> in a loop until `stop` exists (at most
// 150 s), verifying the chain against `root` and the name; one line per handshake in `out`:
// "ok serial=<hex>" or "fail", then "done".
constexpr const char* kHandshakeLoop = R"SH(
port=$1 root=$2 out=$3 stop=$4
end=$((SECONDS + 150))
while [ ! -e "$stop" ] && [ $SECONDS -lt $end ]; do
  if pem=$(openssl s_client -connect "127.0.0.1:$port" -servername console.example.test \
      -verify_hostname console.example.test -CAfile "$root" -verify_return_error \
      < /dev/null 2> /dev/null); then
    echo "ok $(printf '%s\n' "$pem" | openssl x509 -noout -serial 2> /dev/null)"
  else
    echo fail
  fi
done > "$out"
echo done >> "$out"
)SH";

std::vector<std::string> linesOf(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

}  // namespace

TEST_CASE(
    "issuance e2e: HTTPS with a managed certificate, swapped by its renewal under a running "
    "openssl s_client loop with no failed handshake") {
  Deployment d(0);
  const auto [certPath, jobPath] = d.order(R"({"common_name":"console.example.test"})");
  const auto first = d.waitFor(certPath, "active", "");
  const std::string certId = certPath.substr(certPath.rfind('/') + 1);
  // A second instance on the same store serves HTTPS with it; the first one runs the jobs.
  ServerProcess tls({}, "store.url = sqlite://" + d.server->databasePath().string() +
                            "\nserver.tls.certificate_id = " + certId +
                            "\nserver.tls.reload_interval = 1s\n");
  CHECK(tls.log().find("serving HTTPS with certificate " + certId) != std::string::npos);

  const auto dir = std::filesystem::temp_directory_path() /
                   ("certsteward-tls-loop-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  // However the test ends, the loop stops and its files go.
  struct Cleanup {
    std::filesystem::path dir;
    ~Cleanup() {
      std::ofstream(dir / "stop") << "stop";
      for (int i = 0; i < 50 && std::filesystem::exists(dir / "handshakes"); ++i) {
        std::ifstream in(dir / "handshakes");
        std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (all.ends_with("done\n")) break;
        std::this_thread::sleep_for(std::chrono::milliseconds{100});
      }
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } cleanup{dir};
  std::ofstream(dir / "root.pem") << d.ca->managementGet("/roots/0");
  std::ofstream(dir / "loop.sh") << kHandshakeLoop;
  const auto out = dir / "handshakes";
  const auto stop = dir / "stop";
  const std::string command = "bash " + (dir / "loop.sh").string() + " " +
                              std::to_string(tls.port()) + " " + (dir / "root.pem").string() + " " +
                              out.string() + " " + stop.string() + " &";
  REQUIRE(std::system(command.c_str()) == 0);
  const auto waitForLines = [&](const std::function<bool(const std::vector<std::string>&)>& done) {
    for (int i = 0; i < 600; ++i) {  // bounded: 60 s
      if (done(linesOf(out))) return;
      std::this_thread::sleep_for(std::chrono::milliseconds{100});
    }
  };
  const auto count = [](const std::vector<std::string>& lines, const std::string& serial) {
    return std::count_if(lines.begin(), lines.end(), [&](const std::string& l) {
      return l.starts_with("ok serial=") && sameSerial(l.substr(10)) == sameSerial(serial);
    });
  };
  const std::string before = field(first, "serial_number");
  waitForLines([&](const auto& lines) { return count(lines, before) >= 5; });

  REQUIRE(d.http->request("POST", certPath + "/renew", "", {d.auth}).status == 202);
  const std::string after = field(d.waitFor(certPath, "active", before), "serial_number");
  waitForLines([&](const auto& lines) { return count(lines, after) >= 5; });
  std::ofstream(stop.string()) << "stop";
  waitForLines([](const auto& lines) { return !lines.empty() && lines.back() == "done"; });

  auto lines = linesOf(out);
  REQUIRE((!lines.empty() && lines.back() == "done"));
  lines.pop_back();
  INFO(tls.log());
  CHECK(count(lines, before) >= 5);
  CHECK(count(lines, after) >= 5);
  // Every handshake verified, each with the old certificate or the new one, and the new one
  // from its first appearance on.
  CHECK(count(lines, before) + count(lines, after) == static_cast<long>(lines.size()));
  const auto firstNew = std::find_if(lines.begin(), lines.end(),
                                     [&](const std::string& l) { return count({l}, after) == 1; });
  CHECK(std::all_of(firstNew, lines.end(),
                    [&](const std::string& l) { return count({l}, after) == 1; }));
  CHECK(tls.log().find("now serving HTTPS with certificate " + certId) != std::string::npos);
  MESSAGE(lines.size() << " handshakes, " << count(lines, before) << " before the renewal");
  CHECK(tls.stop() == 0);
  CHECK(d.server->stop() == 0);
}

TEST_CASE("issuance e2e: with its first CA down a certificate is issued by the second, and back") {
  // Orders fail over at once when a CA cannot be reached; failback_after 0s: every order tries
  // the first choice first.
  Deployment d(0, "acme.failback_after = 0s\nacme.request_timeout = 2s\n");
  auto& http = *d.http;
  // A second Pebble with a TLS certificate of its own, trusted only through its provider.
  PebbleServer second(PebbleOptions{d.dns.address(), {}, 0});
  REQUIRE_MESSAGE(second.available(), second.reason());
  std::ifstream bundleFile(second.caFile());
  const std::string bundle((std::istreambuf_iterator<char>(bundleFile)), {});
  auto provider =
      http.request("POST", "/api/v1/ca-providers",
                   json::serialize(json::object{{"name", "Pebble B"},
                                                {"directory_url", second.directoryUrl()},
                                                {"trust_bundle", bundle}}),
                   {d.auth});
  REQUIRE_MESSAGE(provider.status == 201, provider.body);
  CHECK(field(parseObject(provider), "directory_error").empty());  // read through its bundle
  const std::string secondAccount = d.created(
      d.base + "/acme-accounts",
      json::object{{"name", "pebble-b"}, {"ca_provider_id", field(parseObject(provider), "id")}},
      "acme_account");
  const auto accounts = parseObject(http.request("GET", d.base + "/acme-accounts", "", {d.auth}));
  const std::string firstAccount =
      field(accounts.at("acme_accounts").as_array().at(0).as_object(), "id");
  REQUIRE(firstAccount != secondAccount);

  d.ca->stop();  // the first choice is down
  const auto [certPath, jobPath] = d.order(json::serialize(json::object{
      {"common_name", "failover.example.test"},
      {"acme_account_ids", json::array{json::value(firstAccount), json::value(secondAccount)}}}));
  const auto issued = d.waitFor(certPath, "active", "");
  CHECK(field(issued, "issued_by_account_id") == secondAccount);
  CHECK(field(issued, "issued_by_provider_id") == field(parseObject(provider), "id"));
  CHECK(field(issued, "failover_account_id") == secondAccount);
  const auto logs = http.request("GET", jobPath + "/logs?page_size=100", "", {d.auth});
  CHECK(logs.body.find("failing over from ACME account 'pebble'") != std::string::npos);
  auto events = http.request("GET", d.base + "/events?page_size=100", "", {d.auth});
  CHECK(events.body.find("ca.failover") != std::string::npos);
  auto audit = parseObject(
      http.request("GET", "/api/v1/audit-logs?action=certificate.ca_failover", "", {d.auth}));
  CHECK(audit.at("total").as_int64() == 1);

  // The first CA back: the renewal goes to it again, and the failover is over.
  REQUIRE(d.ca->restart());
  REQUIRE(http.request("POST", certPath + "/renew", "", {d.auth}).status == 202);
  const auto renewed = d.waitFor(certPath, "active", field(issued, "serial_number"));
  CHECK(field(renewed, "issued_by_account_id") == firstAccount);
  CHECK(renewed.at("failover_account_id").is_null());
  CHECK(d.server->stop() == 0);
}

TEST_CASE("issuance e2e: a CA stopped in the middle of an order: the next CA issues it, and back") {
  // The first choice is a real Pebble behind the stand-in proxy, which holds the client's answer
  // to the challenge: the order at the first CA stands mid-way while that Pebble is stopped. The
  // request timeout is longer than the hold, so what the client meets is the stopped CA.
  Deployment d(0, "acme.failback_after = 0s\nacme.request_timeout = 15s\n");
  auto& http = *d.http;
  PebbleServer first(PebbleOptions{d.dns.address(), {}, 0});
  REQUIRE_MESSAGE(first.available(), first.reason());
  AcmeStandInProxy proxy(first);
  REQUIRE_MESSAGE(proxy.available(), proxy.reason());
  auto provider = http.request("POST", "/api/v1/ca-providers",
                               json::serialize(json::object{{"name", "Pebble A"},
                                                            {"directory_url", proxy.directoryUrl()},
                                                            {"trust_bundle", proxy.caPem()}}),
                               {d.auth});
  REQUIRE_MESSAGE(provider.status == 201, provider.body);
  const std::string firstAccount = d.created(
      d.base + "/acme-accounts",
      json::object{{"name", "pebble-a"}, {"ca_provider_id", field(parseObject(provider), "id")}},
      "acme_account");
  const auto accounts = parseObject(http.request("GET", d.base + "/acme-accounts", "", {d.auth}));
  const std::string secondAccount =
      field(accounts.at("acme_accounts").as_array().at(0).as_object(), "id");  // d.ca's
  REQUIRE(firstAccount != secondAccount);

  REQUIRE(proxy.control("hold-challenges", R"({"count":1})"));
  const auto [certPath, jobPath] = d.order(json::serialize(json::object{
      {"common_name", "midway.example.test"},
      {"acme_account_ids", json::array{json::value(firstAccount), json::value(secondAccount)}}}));
  bool held = false;
  for (int i = 0; i < 600 && !held; ++i) {  // bounded: 30 s
    const auto answer = proxy.read("held");
    held = answer.is_object() && answer.at("held").as_int64() >= 1;
    if (!held) std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
  REQUIRE_MESSAGE(held, d.jobLogs());
  first.stop();  // the order at the first CA is pending, the client's challenge answer held
  const auto stoppedAt = std::chrono::steady_clock::now();
  REQUIRE(proxy.control("release", "{}"));
  const auto issued = d.waitFor(certPath, "active", "");
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - stoppedAt);
  CHECK(field(issued, "issued_by_account_id") == secondAccount);
  CHECK(field(issued, "failover_account_id") == secondAccount);
  const auto logs = http.request("GET", jobPath + "/logs?page_size=100", "", {d.auth});
  CHECK(logs.body.find("failing over from ACME account 'pebble-a'") != std::string::npos);
  CHECK(proxy.orders().size() == 1);  // the order that stood mid-way, and no other
  auto audit = parseObject(
      http.request("GET", "/api/v1/audit-logs?action=certificate.ca_failover", "", {d.auth}));
  CHECK(audit.at("total").as_int64() == 1);
  MESSAGE("first CA stopped mid-order to the certificate issued by the second: " << took.count()
                                                                                 << " ms");

  // Started again (a new CA at the same address, which has never seen the account): the renewal
  // goes to the first choice, and the failover is over.
  REQUIRE(first.restart());
  REQUIRE(proxy.control("reset", "{}"));
  REQUIRE(http.request("POST", certPath + "/renew", "", {d.auth}).status == 202);
  const auto renewed = d.waitFor(certPath, "active", field(issued, "serial_number"));
  CHECK(field(renewed, "issued_by_account_id") == firstAccount);
  CHECK(renewed.at("failover_account_id").is_null());
  // The new CA refused the first newOrder (an account it does not know: registered again), and
  // issued the next.
  const auto orders = proxy.orders();
  REQUIRE(!orders.empty());
  CHECK(orders.back().at("status").as_int64() == 201);
  for (std::size_t i = 0; i + 1 < orders.size(); ++i)
    CHECK(orders[i].at("status").as_int64() == 400);
  CHECK(orders.size() <= 2);
  CHECK(proxy.violations().empty());
  CHECK(d.server->stop() == 0);
}
