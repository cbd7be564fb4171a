// Issuance benchmark: 20 certificates against Pebble + bind9 (both started here on 127.0.0.1),
// through the packaged CertSteward (one and four workers) and, in the same run, with lego
// (Debian's reference ACME client, one certificate per run, RFC 2136 DNS provider). Prints the
// wall time per certificate of each and the ratios. CertSteward runs on its default settings
// (acme.poll_interval 500ms, worker.poll_interval 2s); lego with --dns.disable-cp. Asserts
// nothing.
#include <sys/wait.h>

#include <boost/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "e2e/http_client.hpp"
#include "e2e/server_process.hpp"
#include "support/bind9_server.hpp"
#include "support/ed25519_keys.hpp"
#include "support/pebble_server.hpp"
#include "support/test_licenses.hpp"

using namespace certsteward::testing;
namespace json = boost::json;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kCertificates = 20;

std::string field(const std::string& body, const char* key) {
  boost::system::error_code ec;
  auto v = json::parse(body, ec);
  if (ec || !v.is_object()) return {};
  const auto* f = v.as_object().if_contains(key);
  return f != nullptr && f->is_string() ? std::string(f->as_string()) : std::string();
}

// Seconds for kCertificates through a fresh CertSteward with `workers` workers; -1 on failure.
double viaCertsteward(const Bind9Server& dns, const PebbleServer& ca, int workers, int round) {
  const auto [priv, pub] = ed25519KeyPairPem();
  const auto keyFile = std::filesystem::temp_directory_path() /
                       ("certsteward-bench-license-" + std::to_string(::getpid()) + ".pem");
  std::ofstream(keyFile) << pub;
  ServerProcess server(
      {{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", "bench"},
       {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", "bench-password"}},
      "worker.enabled = true\nworker.max_concurrency = " + std::to_string(workers) +
          "\nacme.ca_bundle = " + ca.caFile() + "\ndns.resolvers = " + dns.address() +
          "\nlicense.public_key_file = " + keyFile.string() + "\n");
  HttpClient http(server.baseUrl());
  const auto login = http.request("POST", "/api/v1/auth/login",
                                  R"({"username":"bench","password":"bench-password"})");
  const std::string auth = "Authorization: Bearer " + field(login.body, "access_token");
  const auto license = certsteward::testing::signedLicense(
      priv, "bench", "Bench", 1000, certsteward::testing::unixTimeIn(std::chrono::hours{24}));
  http.request("POST", "/api/v1/license/activate",
               json::serialize(json::object{{"license_key", license}}), {auth});
  const auto project = http.request("POST", "/api/v1/projects", R"({"name":"bench"})", {auth});
  std::string pid;
  {
    boost::system::error_code ec;
    pid = std::string(json::parse(project.body, ec).at("project").at("id").as_string());
  }
  const std::string base = "/api/v1/projects/" + pid;
  http.request(
      "POST", base + "/acme-accounts",
      json::serialize(json::object{{"name", "pebble"}, {"directory_url", ca.directoryUrl()}}),
      {auth});
  const auto cred = http.request(
      "POST", base + "/dns-credentials",
      json::serialize(json::object{
          {"name", "bind9"},
          {"provider", "rfc2136"},
          {"settings", json::object{{"server", dns.address()}, {"key_name", Bind9Server::kKey256}}},
          {"secret", Bind9Server::kSecret256}}),
      {auth});
  boost::system::error_code ec;
  const std::string credId =
      std::string(json::parse(cred.body, ec).at("dns_credential").at("id").as_string());
  http.request(
      "POST", base + "/zones",
      json::serialize(json::object{{"domain", Bind9Server::kZone}, {"dns_credential_id", credId}}),
      {auth});

  const auto start = Clock::now();
  for (int i = 0; i < kCertificates; ++i) {
    const std::string name =
        "cs" + std::to_string(round) + "-" + std::to_string(i) + ".example.test";
    http.request("POST", base + "/certificates",
                 json::serialize(json::object{{"common_name", name}}), {auth});
  }
  for (int polls = 0; polls < 6000; ++polls) {  // bounded: 10 minutes
    const auto page =
        http.request("GET", base + "/certificates?status=active&page_size=1", "", {auth});
    boost::system::error_code e;
    const auto v = json::parse(page.body, e);
    if (!e && v.is_object() && v.as_object().at("total").as_int64() == kCertificates) {
      std::filesystem::remove(keyFile);
      return std::chrono::duration<double>(Clock::now() - start).count();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
  std::filesystem::remove(keyFile);
  return -1;
}

// Seconds for kCertificates with lego, one run per certificate; -1 on failure.
double lego(const Bind9Server& dns, const PebbleServer& ca) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("certsteward-bench-lego-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ::setenv("LEGO_CA_CERTIFICATES", ca.caFile().c_str(), 1);
  ::setenv("RFC2136_NAMESERVER", dns.address().c_str(), 1);
  ::setenv("RFC2136_TSIG_KEY", (std::string(Bind9Server::kKey256) + ".").c_str(), 1);
  ::setenv("RFC2136_TSIG_SECRET", Bind9Server::kSecret256, 1);
  ::setenv("RFC2136_TSIG_ALGORITHM", "hmac-sha256.", 1);
  ::setenv("RFC2136_POLLING_INTERVAL", "1", 1);
  ::setenv("RFC2136_PROPAGATION_TIMEOUT", "60", 1);
  const auto start = Clock::now();
  for (int i = 0; i < kCertificates; ++i) {
    const std::string cmd = "/usr/bin/lego --server " + ca.directoryUrl() +
                            " --email bench@example.test --accept-tos --dns rfc2136 "
                            "--dns.resolvers " +
                            dns.address() + " --dns.disable-cp --domains lego-" +
                            std::to_string(i) + ".example.test --path " + dir.string() + " run > " +
                            (dir / "lego.log").string() + " 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      std::ifstream log(dir / "lego.log");
      std::cerr << "lego failed:\n" << log.rdbuf() << "\n";
      std::filesystem::remove_all(dir);
      return -1;
    }
  }
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::filesystem::remove_all(dir);
  return seconds;
}

}  // namespace

namespace {

int run() {
  Bind9Server dns;
  if (!dns.available()) {
    std::cerr << dns.reason() << "\n";
    return 1;
  }
  PebbleServer ca(PebbleOptions{dns.address(), {}, 0});
  if (!ca.available()) {
    std::cerr << ca.reason() << "\n";
    return 1;
  }
  const double serial = viaCertsteward(dns, ca, 1, 1);
  const double parallel = viaCertsteward(dns, ca, 4, 4);
  const double reference = lego(dns, ca);
  std::printf("issuance of %d certificates (Pebble + bind9 on loopback, DNS-01 over RFC 2136)\n",
              kCertificates);
  std::printf("%-28s %8.2f s total  %7.3f s per certificate\n", "certsteward, 1 worker", serial,
              serial / kCertificates);
  std::printf("%-28s %8.2f s total  %7.3f s per certificate\n", "certsteward, 4 workers", parallel,
              parallel / kCertificates);
  std::printf("%-28s %8.2f s total  %7.3f s per certificate\n", "lego (one run each)", reference,
              reference / kCertificates);
  if (serial > 0 && parallel > 0 && reference > 0) {
    std::printf("ratio certsteward/lego per certificate: %.2f (1 worker), %.2f (4 workers)\n",
                serial / reference, parallel / reference);
  }
  return serial > 0 && parallel > 0 && reference > 0 ? 0 : 1;
}

}  // namespace

int main() {
  // Caught here so that the servers started above are stopped on every path.
  try {
    return run();
  } catch (const std::exception& e) {
    std::cerr << "issuance benchmark failed: " << e.what() << "\n";
    return 1;
  }
}
