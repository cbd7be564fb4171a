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
#include "support/python_standin.hpp"

namespace certsteward::testing {

class CloudflareStandIn : public PythonStandIn {
 public:
  static constexpr const char* kZone = "example.test.";
  static constexpr const char* kZoneId = "0123456789abcdef0123456789abcdef";
  static constexpr const char* kOtherZoneId = "fedcba9876543210fedcba9876543210";
  static constexpr const char* kToken = "cf-test-token-Zone-Read-DNS-Edit-0123456789";
  static constexpr int kVisibleAfter = 2;

  CloudflareStandIn() {
    launch("the Cloudflare stand-in", "cloudflare_standin.py",
           {kToken, std::to_string(kVisibleAfter), std::string("example.test=") + kZoneId,
            std::string("other.test=") + kOtherZoneId});
  }

  std::string apiUrl() const { return base() + "/client/v4"; }

  // The next `count` API requests are answered 429 (Retry-After: 1).
  void throttle(int count) const { control("throttle", std::to_string(count)); }
  // API requests answered so far (throttled ones included).
  int requests() const { return counted("requests"); }
  // DNS records it holds, in every zone.
  int records() const { return counted("records"); }
};

// The one stand-in a test process shares (started on first use, stopped at exit).
inline CloudflareStandIn& cloudflareStandIn() {
  static CloudflareStandIn server;
  return server;
}

}  // namespace certsteward::testing
