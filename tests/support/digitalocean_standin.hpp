// DigitalOceanStandIn: tests/support/digitalocean_standin.py (under Debian's python3) on
// 127.0.0.1, its API at apiUrl() and its DNS responder at dnsAddress(), holding the domain kZone
// and taking only the token kToken. It follows DigitalOcean's published API v2 for what DNS-01
// uses and refuses what the real API refuses (see the script). A record becomes visible in its
// DNS after kVisibleAfter queries. Not the live service: see docs/operations.md. Stopped and
// removed by the destructor.
#pragma once

#include <filesystem>
#include <string>

#include <certsteward/adapters/common/http_client.hpp>
#include "support/child_process.hpp"
#include "support/free_port.hpp"

namespace certsteward::testing {

class DigitalOceanStandIn : public LocalServer {
 public:
  static constexpr const char* kZone = "example.test.";
  static constexpr const char* kToken = "dop_v1_standin0123456789abcdef0123456789abcdef";
  static constexpr int kVisibleAfter = 1;

  DigitalOceanStandIn() {
    if (!std::filesystem::exists("/usr/bin/python3")) {
      reason_ = "python3 is not installed";
      return;
    }
    dir_ = freshServerDir("digitalocean");
    port_ = freeLoopbackPort();
    dnsPort_ = freeLoopbackPort();
    pid_ =
        spawnLogged({"/usr/bin/python3",
                     std::string(CERTSTEWARD_SOURCE_DIR) + "/tests/support/digitalocean_standin.py",
                     std::to_string(port_), std::to_string(dnsPort_), kToken,
                     std::to_string(kVisibleAfter), "example.test", "other.test"},
                    dir_ / "standin.log");
    reason_ = waitUntilReady(
        pid_, dir_ / "standin.log", "the DigitalOcean stand-in",
        [](const std::string& text) { return text.find("listening") != std::string::npos; });
  }

  std::string apiUrl() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v2"; }
  std::string dnsAddress() const { return "127.0.0.1:" + std::to_string(dnsPort_); }

  // The next `count` API requests are answered 429.
  void throttle(int count) const {
    adapters::common::HttpRequest request;
    request.url = "http://127.0.0.1:" + std::to_string(port_) + "/__standin/throttle";
    request.body = std::to_string(count);
    (void)adapters::common::postHttp(request);
  }

 private:
  int dnsPort_ = 0;
};

// The one stand-in a test process shares (started on first use, stopped at exit).
inline DigitalOceanStandIn& digitalOceanStandIn() {
  static DigitalOceanStandIn server;
  return server;
}

}  // namespace certsteward::testing
