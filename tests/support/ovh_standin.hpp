// OvhStandIn: tests/support/ovh_standin.py (under Debian's python3) on 127.0.0.1, the OVHcloud
// API v1 at apiUrl() (".../1.0") and its DNS responder at dnsAddress(), holding the zones kZone
// and other.test. It takes only the application kApplicationKey / kApplicationSecret, with the
// consumer key kConsumerKey (GET, POST, PUT, DELETE on /domain/zone/*), kReadOnlyConsumerKey (GET
// only) or kPendingConsumerKey (never validated), checks every call's X-Ovh-Signature and
// X-Ovh-Timestamp as OVH does and refuses what the real API refuses (see the script). Records are
// served by its DNS only after POST .../refresh (deletions too), then become visible after
// kVisibleAfter queries. Not the live service: see docs/operations.md. Stopped and removed by the
// destructor.
#pragma once

#include <filesystem>
#include <string>

#include <certsteward/adapters/common/http_client.hpp>
#include "support/child_process.hpp"
#include "support/python_standin.hpp"

namespace certsteward::testing {

class OvhStandIn : public PythonStandIn {
 public:
  static constexpr const char* kZone = "example.test.";
  static constexpr const char* kApplicationKey = "StandinAppKey0AK";
  static constexpr const char* kApplicationSecret = "StandinAppSecret0123456789abcdef";
  static constexpr const char* kConsumerKey = "StandinConsumerKey0123456789abcd";
  static constexpr const char* kReadOnlyConsumerKey = "RoStandinConsumerKey0123456789ab";
  static constexpr const char* kPendingConsumerKey = "PendingStandinConsumerKey0123456";
  static constexpr int kVisibleAfter = 1;

  OvhStandIn() {
    launch("the OVHcloud stand-in", "ovh_standin.py",
           {kApplicationKey, kApplicationSecret,
            std::string(kConsumerKey) + ":rw," + kReadOnlyConsumerKey + ":ro," +
                kPendingConsumerKey + ":pending",
            std::to_string(kVisibleAfter), "example.test", "other.test"});
  }

  // The API base; a call's signed URL is apiUrl() + path (+ "?" + query).
  std::string apiUrl() const { return base() + "/1.0"; }

  // The next `count` API requests (GET /auth/time included) are answered 429.
  void throttle(int count) const { control("throttle", std::to_string(count)); }
  // Its clock (GET /auth/time, and the X-Ovh-Timestamp check) runs `seconds` off the machine's.
  void setClockOffset(int seconds) const { control("clock", std::to_string(seconds)); }

  // API requests answered so far (throttled ones included).
  int requests() const { return counted("requests"); }
  // Records it holds, in every zone.
  int records() const { return counted("records"); }
  // POST .../refresh calls so far.
  int refreshes() const { return counted("refreshes"); }
  // Records its DNS serves (as of each zone's last refresh).
  int published() const { return counted("published"); }
};

// The one stand-in a test process shares (started on first use, stopped at exit).
inline OvhStandIn& ovhStandIn() {
  static OvhStandIn server;
  return server;
}

}  // namespace certsteward::testing
