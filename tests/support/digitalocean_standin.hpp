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
#include "support/python_standin.hpp"

namespace certsteward::testing {

class DigitalOceanStandIn : public PythonStandIn {
 public:
  static constexpr const char* kZone = "example.test.";
  static constexpr const char* kToken = "dop_v1_standin0123456789abcdef0123456789abcdef";
  static constexpr int kVisibleAfter = 1;

  DigitalOceanStandIn() {
    launch("the DigitalOcean stand-in", "digitalocean_standin.py",
           {kToken, std::to_string(kVisibleAfter), "example.test", "other.test"});
  }

  std::string apiUrl() const { return base() + "/v2"; }

  // The next `count` API requests are answered 429.
  void throttle(int count) const { control("throttle", std::to_string(count)); }
};

// The one stand-in a test process shares (started on first use, stopped at exit).
inline DigitalOceanStandIn& digitalOceanStandIn() {
  static DigitalOceanStandIn server;
  return server;
}

}  // namespace certsteward::testing
