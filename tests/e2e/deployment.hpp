// Deployment: the packaged binary wired to a real Pebble and bind9 on 127.0.0.1 (started here),
// logged in, with a project that has an ACME account, a DNS credential (TSIG) and the zone —
// and the polling helpers the end-to-end suites share.
#pragma once

#include <doctest/doctest.h>

#include <unistd.h>

#include <boost/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <thread>

#include <certsteward/adapters/crypto/ed25519_license_verifier.hpp>
#include <certsteward/domain/encoding.hpp>
#include "e2e/http_client.hpp"
#include "e2e/json_polling.hpp"
#include "e2e/server_process.hpp"
#include "support/bind9_server.hpp"
#include "support/chain_verify.hpp"
#include "support/pebble_server.hpp"

namespace certsteward::testing {
namespace json = boost::json;

// A packaged server wired to Pebble and bind9, logged in, with a project that has an ACME
// account, a DNS credential (TSIG) and the zone.
struct Deployment {
  Bind9Server dns;
  std::unique_ptr<PebbleServer> ca;
  std::unique_ptr<ServerProcess> server;
  std::unique_ptr<HttpClient> http;
  std::string auth;
  std::string base;  // /api/v1/projects/<id>
  std::string zoneId;

  // `eabKeys` (kid -> base64url HMAC key): Pebble then requires External Account Binding.
  // `pebbleHttpPort`: where Pebble validates HTTP-01 (0: a port of its own, unused).
  explicit Deployment(int validitySeconds, const std::string& extraConfig = {},
                      const std::map<std::string, std::string>& eabKeys = {},
                      int pebbleHttpPort = 0) {
    REQUIRE_MESSAGE(dns.available(), dns.reason());
    ca = std::make_unique<PebbleServer>(
        PebbleOptions{dns.address(), eabKeys, validitySeconds, pebbleHttpPort});
    REQUIRE_MESSAGE(ca->available(), ca->reason());
    server = std::make_unique<ServerProcess>(
        std::map<std::string, std::string>{
            {"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", "root"},
            {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", "correct horse battery"}},
        "worker.enabled = true\nworker.poll_interval = 200ms\nacme.ca_bundle = " + ca->caFile() +
            "\nacme.poll_interval = 100ms\ndns.poll_interval = 50ms\n"
            "dns.propagation_timeout = 10s\ndns.resolvers = " +
            dns.address() + "\nacme.rate_limits = " + ca->directoryUrl() + " certificates=20/7d\n" +
            extraConfig);
    http = std::make_unique<HttpClient>(server->baseUrl());
    auto login = http->request("POST", "/api/v1/auth/login",
                               R"({"username":"root","password":"correct horse battery"})");
    REQUIRE(login.status == 200);
    auth = "Authorization: Bearer " + field(parseObject(login), "access_token");
    base = "/api/v1/projects/" +
           created("/api/v1/projects", json::object{{"name", "issuance"}}, "project");
    created(base + "/acme-accounts",
            json::object{{"name", "pebble"},
                         {"directory_url", ca->directoryUrl()},
                         {"email", "ops@example.test"}},
            "acme_account");
    const std::string credential =
        created(base + "/dns-credentials",
                json::object{{"name", "bind9"},
                             {"provider", "rfc2136"},
                             {"settings", json::object{{"server", dns.address()},
                                                       {"key_name", Bind9Server::kKey256},
                                                       {"algorithm", "hmac-sha256"}}},
                             {"secret", Bind9Server::kSecret256}},
                "dns_credential");
    zoneId = created(
        base + "/zones",
        json::object{{"domain", Bind9Server::kZone}, {"dns_credential_id", credential}}, "zone");
  }

  std::string created(const std::string& path, const json::object& body, const char* singular) {
    auto r = http->request("POST", path, json::serialize(body), {auth});
    REQUIRE_MESSAGE(r.status == 201, path << " " << r.body);
    return field(parseObject(r).at(singular).as_object(), "id");
  }

  // Moves the certificate to a new ACME account of the same Pebble, for a renewal that must meet
  // the DNS: Pebble may hand an account its still-valid authorization again, DNS untouched
  // (PEBBLE_AUTHZREUSE=0 still does 1 time in 100: its test is rand.Intn(100) > percent). A new
  // account has none.
  void moveToFreshAccount(const std::string& certPath) {
    static int made = 0;
    const std::string account =
        created(base + "/acme-accounts",
                json::object{{"name", "pebble-fresh-" + std::to_string(++made)},
                             {"directory_url", ca->directoryUrl()}},
                "acme_account");
    const auto moved = http->request(
        "PATCH", certPath,
        json::serialize(json::object{{"acme_account_ids", json::array{json::value(account)}}}),
        {auth});
    REQUIRE_MESSAGE(moved.status == 200, moved.body);
  }

  // POSTs a certificate (expects 202); its path and its job's path.
  struct Ordered {
    std::string certPath;
    std::string jobPath;
  };
  Ordered order(const std::string& body) {
    auto posted = http->request("POST", base + "/certificates", body, {auth});
    REQUIRE_MESSAGE(posted.status == 202, posted.body);
    const auto o = parseObject(posted);
    return {base + "/certificates/" + field(o.at("certificate").as_object(), "id"),
            base + "/jobs/" + field(o.at("job").as_object(), "id")};
  }

  // Polls the job (bounded: 30 s) until it has `status`; the job as last seen.
  json::object waitForJob(const std::string& jobPath, const std::string& status) {
    json::object job;
    for (int i = 0; i < 150; ++i) {
      job = parseObject(http->request("GET", jobPath, "", {auth})).at("job").as_object();
      if (field(job, "status") == status) break;
      std::this_thread::sleep_for(std::chrono::milliseconds{200});
    }
    REQUIRE_MESSAGE(field(job, "status") == status, json::serialize(job));
    return job;
  }

  // Every job's log, for a failure's message.
  std::string jobLogs() {
    std::string out;
    const auto jobs = parseObject(http->request("GET", base + "/jobs?page_size=100", "", {auth}));
    for (const auto& j : jobs.at("jobs").as_array()) {
      const auto id = field(j.as_object(), "id");
      out += id + ": " +
             http->request("GET", base + "/jobs/" + id + "/logs?page_size=100", "", {auth}).body +
             "\n";
    }
    return out;
  }

  // Polls the certificate (bounded: 60 s) until it has `status` and a serial other than
  // `notSerial`.
  json::object waitFor(const std::string& certPath, const std::string& status,
                       const std::string& notSerial) {
    json::object cert;
    for (int i = 0; i < 300; ++i) {
      cert = parseObject(http->request("GET", certPath, "", {auth})).at("certificate").as_object();
      if (field(cert, "status") == status && field(cert, "serial_number") != notSerial) return cert;
      std::this_thread::sleep_for(std::chrono::milliseconds{200});
    }
    FAIL("certificate still "
         << field(cert, "status") << ": " << field(cert, "last_error") << "\n"
         << json::serialize(cert) << "\n"
         << http->request("GET", base + "/jobs?page_size=100", "", {auth}).body << "\n"
         << http->request("GET", base + "/events?page_size=100", "", {auth}).body << "\n"
         << jobLogs() << "\n"
         << server->log());
    return cert;
  }
};

}  // namespace certsteward::testing
