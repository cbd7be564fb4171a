// CloudflareStandIn: tests/support/cloudflare_standin.py (under Debian's python3) on 127.0.0.1,
// its API at apiUrl() and its DNS responder on a port of its own, holding the zone kZone (id
// kZoneId) and a second zone, and taking only the token kToken. It follows Cloudflare's published
// API v4 for what DNS-01 uses and refuses what the real API refuses (see the script). A record
// becomes visible in its DNS after kVisibleAfter queries. Not the live service: see
// docs/operations.md. Stopped and removed by the destructor.
#pragma once

#include <filesystem>
#include <string>

#include <certsteward/adapters/common/http_client.hpp>
#include "support/child_process.hpp"
#include "support/free_port.hpp"

namespace certsteward::testing {

class CloudflareStandIn : public LocalServer {
 public:
  static constexpr const char* kZone = "example.test.";
  static constexpr const char* kZoneId = "0123456789abcdef0123456789abcdef";
  static constexpr const char* kOtherZoneId = "fedcba9876543210fedcba9876543210";
  static constexpr const char* kToken = "cf-test-token-Zone-Read-DNS-Edit-0123456789";
  static constexpr int kVisibleAfter = 2;

  CloudflareStandIn() {
    if (!std::filesystem::exists("/usr/bin/python3")) {
      reason_ = "python3 is not installed";
      return;
    }
    dir_ = freshServerDir("cloudflare");
    port_ = freeLoopbackPort();
    dnsPort_ = freeLoopbackPort();
    pid_ = spawnLogged(
        {"/usr/bin/python3",
         std::string(CERTSTEWARD_SOURCE_DIR) + "/tests/support/cloudflare_standin.py",
         std::to_string(port_), std::to_string(dnsPort_), kToken, std::to_string(kVisibleAfter),
         std::string("example.test=") + kZoneId, std::string("other.test=") + kOtherZoneId},
        dir_ / "standin.log");
    reason_ = waitUntilReady(
        pid_, dir_ / "standin.log", "the Cloudflare stand-in",
        [](const std::string& text) { return text.find("listening") != std::string::npos; });
  }

  std::string apiUrl() const { return "http://127.0.0.1:" + std::to_string(port_) + "/client/v4"; }
  std::string dnsAddress() const { return "127.0.0.1:" + std::to_string(dnsPort_); }
  std::string log() const { return readLog(dir_ / "standin.log"); }

  // The next `count` API requests are answered 429 (Retry-After: 1).
  void throttle(int count) const {
    adapters::common::HttpRequest request;
    request.url = "http://127.0.0.1:" + std::to_string(port_) + "/__standin/throttle";
    request.body = std::to_string(count);
    (void)adapters::common::postHttp(request);
  }
  // API requests answered so far (throttled ones included).
  int requests() const { return count("requests"); }
  // DNS records it holds, in every zone.
  int records() const { return count("records"); }

 private:
  int count(const std::string& what) const {
    adapters::common::HttpRequest request;
    request.url = "http://127.0.0.1:" + std::to_string(port_) + "/__standin/" + what;
    const auto answer = adapters::common::getHttp(request);
    if (!answer || answer->status != 200) return -1;
    const auto at = answer->body.find(':');
    return at == std::string::npos ? -1 : std::atoi(answer->body.c_str() + at + 1);
  }

  int dnsPort_ = 0;
};

// The one stand-in a test process shares (started on first use, stopped at exit).
inline CloudflareStandIn& cloudflareStandIn() {
  static CloudflareStandIn server;
  return server;
}

}  // namespace certsteward::testing
