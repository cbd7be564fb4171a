// PebbleServer: Pebble (the ACME test CA) started by a test on 127.0.0.1 at free ports, with a
// TLS certificate made for it here (its CA file is what the client trusts), validating DNS-01
// through `dnsServer` ("127.0.0.1:port") and HTTP-01 at `http_port` of the address that DNS gives,
// optionally requiring External Account Binding. Stopped (SIGTERM, then SIGKILL) and removed by the
// destructor. available() is false, with a reason, when pebble is not installed or does not start.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "support/child_process.hpp"
#include "support/free_port.hpp"
#include "support/test_certificates.hpp"

namespace certsteward::testing {

struct PebbleOptions {
  std::string dns_server;                       // "127.0.0.1:port"
  std::map<std::string, std::string> eab_keys;  // kid -> base64url HMAC key; non-empty: required
  // 0: 90 days, as Let's Encrypt's classic profile (Pebble's own default, 5 years, is longer
  // than CA/Browser Forum ballot SC-081 allows and would raise policy.lifetime_exceeds_schedule).
  int certificate_validity_seconds = 0;
  int http_port = 0;  // where HTTP-01 is validated (every name resolves to 127.0.0.1); 0: unused
  int alternate_roots = 0;  // more roots, each offered as an alternate chain (Link rel=alternate)
};

class PebbleServer : public LocalServer {
 public:
  explicit PebbleServer(const PebbleOptions& options) {
    if (!std::filesystem::exists("/usr/bin/pebble")) {
      reason_ = "pebble is not installed (scripts/setup installs it)";
      return;
    }
    dir_ = freshServerDir("pebble");
    port_ = freeLoopbackPort();
    managementPort_ = freeLoopbackPort();
    const auto tls = makeTestMaterial("localhost", "DNS:localhost,IP:127.0.0.1");
    std::ofstream(dir_ / "ca.pem") << tls.chain_pem;
    std::ofstream(dir_ / "cert.pem") << tls.certificate_pem;
    std::ofstream(dir_ / "key.pem") << tls.private_key_pem;
    std::string eab;
    for (const auto& [kid, key] : options.eab_keys)
      eab += (eab.empty() ? "" : ", ") + ("\"" + kid + "\": \"" + key + "\"");
    std::ofstream(dir_ / "pebble.json")
        << "{\"pebble\": {\"listenAddress\": \"127.0.0.1:" << port_
        << "\", \"managementListenAddress\": \"127.0.0.1:" << managementPort_
        << "\", \"certificate\": \"" << (dir_ / "cert.pem").string() << "\", \"privateKey\": \""
        << (dir_ / "key.pem").string()
        << "\", \"httpPort\": " << (options.http_port > 0 ? options.http_port : freeLoopbackPort())
        << ", \"tlsPort\": " << freeLoopbackPort() << ", \"ocspResponderURL\": \"\""
        << ", \"externalAccountBindingRequired\": " << (eab.empty() ? "false" : "true")
        << ", \"externalAccountMACKeys\": {" << eab << "}"
        << ", \"certificateValidityPeriod\": "
        << (options.certificate_validity_seconds > 0 ? options.certificate_validity_seconds
                                                     : 90 * 24 * 3600)
        << "}}\n";
    dnsServer_ = options.dns_server;
    alternateRoots_ = options.alternate_roots;
    start();
  }

  // Stops Pebble (SIGTERM, then SIGKILL): its directory stops answering. What it knew (accounts,
  // orders, roots) is gone.
  void stop() {
    if (pid_ > 0) stopChild(pid_);
    pid_ = -1;
  }
  // Starts it again on the same ports with the same TLS certificate: a new CA (new roots, no
  // accounts) at the same directory URL. available() says whether it came up.
  bool restart() {
    stop();
    start();
    return available();
  }

  std::string directoryUrl() const { return "https://127.0.0.1:" + std::to_string(port_) + "/dir"; }
  std::string managementUrl() const {
    return "https://127.0.0.1:" + std::to_string(managementPort_);
  }
  // The CA file that makes Pebble's HTTPS trusted.
  std::string caFile() const { return (dir_ / "ca.pem").string(); }
  // GET on the management interface ("/roots/0", "/cert-status-by-serial/<hex>"); empty on
  // failure. Bounded: 10 s.
  std::string managementGet(const std::string& path) const {
    return getUrl(managementUrl() + path);
  }
  // The ACME directory document; empty on failure. Bounded: 10 s.
  std::string directoryJson() const { return getUrl(directoryUrl()); }

 private:
  void start() {
    std::fflush(nullptr);
    pid_ = ::fork();
    if (pid_ == 0) {
      const std::string log = (dir_ / "pebble.log").string();
      if (std::freopen(log.c_str(), "w", stdout) == nullptr ||
          std::freopen(log.c_str(), "a", stderr) == nullptr)
        ::_exit(127);
      ::setenv("PEBBLE_VA_NOSLEEP", "1", 1);
      ::setenv("PEBBLE_WFE_NONCEREJECT", "0", 1);
      ::setenv("PEBBLE_AUTHZREUSE", "0", 1);
      if (alternateRoots_ > 0) {
        ::setenv("PEBBLE_ALTERNATE_ROOTS", std::to_string(alternateRoots_).c_str(), 1);
      }
      const std::string conf = (dir_ / "pebble.json").string();
      ::execl("/usr/bin/pebble", "pebble", "-config", conf.c_str(), "-dnsserver",
              dnsServer_.c_str(), nullptr);
      ::_exit(127);
    }
    // The log line can come before the listener accepts: ready when the directory answers.
    reason_ = waitUntilReady(pid_, dir_ / "pebble.log", "pebble", [this](const std::string& text) {
      return text.find("ACME directory available") != std::string::npos &&
             !getUrl(directoryUrl()).empty();
    });
  }

  std::string getUrl(const std::string& url) const {
    CURL* curl = curl_easy_init();
    std::string body;
    const std::string ca = caFile();
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_CAINFO, ca.c_str());
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, 10L);
    curl_easy_setopt(
        curl, CURLOPT_WRITEFUNCTION, +[](char* d, std::size_t s, std::size_t n, void* out) {
          static_cast<std::string*>(out)->append(d, s * n);
          return s * n;
        });
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    const auto rc = curl_easy_perform(curl);
    curl_easy_cleanup(curl);
    return rc == CURLE_OK ? body : std::string();
  }

 public:
  std::string log() const { return readLog(dir_ / "pebble.log"); }

 private:
  int managementPort_ = 0;
  std::string dnsServer_;
  int alternateRoots_ = 0;
};

}  // namespace certsteward::testing
