// Route53StandIn: tests/support/route53_standin.py (under Debian's python3) on 127.0.0.1, at
// apiUrl(), holding the public zone kZone (id kZoneId), a private zone of the same name
// (kPrivateZoneId) and a second public zone, and taking only the key kAccessKeyId / kSecretKey
// (which may assume the role kRoleArn through its STS side).
// It follows Route 53's published API reference for what DNS-01 uses, checks every request's
// SigV4 signature as AWS does, and refuses what the real API refuses (see the script). A change
// is PENDING for its first kPendingPolls GetChange calls. Not the live service: see
// docs/operations.md. Stopped and removed by the destructor.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <certsteward/adapters/common/http_client.hpp>
#include "support/child_process.hpp"
#include "support/free_port.hpp"

namespace certsteward::testing {

class Route53StandIn : public LocalServer {
 public:
  static constexpr const char* kZone = "example.test.";
  static constexpr const char* kZoneId = "Z1D633PJN98FT9";
  static constexpr const char* kPrivateZoneId = "Z2PRIVATE00001";
  static constexpr const char* kOtherZoneId = "Z3OTHER0000001";
  static constexpr const char* kAccessKeyId = "AKIASTANDIN0EXAMPLE1";
  static constexpr const char* kSecretKey = "wJalrXUtnFEMI/K7MDENG+bPxRfiCY-standin-key";
  static constexpr int kPendingPolls = 1;
  static constexpr const char* kRoleArn = "arn:aws:iam::123456789012:role/certsteward-dns";

  // `pagedPrivateZones`: that many more private zones named example.test., listed before the
  // public one (their ids sort first), so finding it takes more than one page of 100.
  explicit Route53StandIn(int pagedPrivateZones = 0) {
    if (!std::filesystem::exists("/usr/bin/python3")) {
      reason_ = "python3 is not installed";
      return;
    }
    dir_ = freshServerDir("route53");
    port_ = freeLoopbackPort();
    std::vector<std::string> argv{
        "/usr/bin/python3",
        std::string(CERTSTEWARD_SOURCE_DIR) + "/tests/support/route53_standin.py",
        std::to_string(port_),
        kAccessKeyId,
        kSecretKey,
        std::to_string(kPendingPolls),
        kRoleArn,
        std::string("example.test=") + kZoneId,
        std::string("example.test=") + kPrivateZoneId + "=private",
        std::string("other.test=") + kOtherZoneId};
    for (int i = 0; i < pagedPrivateZones; ++i) {
      char id[32];
      std::snprintf(id, sizeof id, "Z0PAGED%06d", i);
      argv.push_back(std::string("example.test=") + id + "=private");
    }
    pid_ = spawnLogged(argv, dir_ / "standin.log");
    reason_ = waitUntilReady(
        pid_, dir_ / "standin.log", "the Route 53 stand-in",
        [](const std::string& text) { return text.find("listening") != std::string::npos; });
  }

  std::string apiUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string log() const { return readLog(dir_ / "standin.log"); }

  // API requests answered so far (throttled ones included).
  int requests() const {
    adapters::common::HttpRequest request;
    request.url = apiUrl() + "/__standin/requests";
    const auto answer = adapters::common::getHttp(request);
    if (!answer || answer->status != 200) return -1;
    const auto at = answer->body.find('>');
    return at == std::string::npos ? -1 : std::atoi(answer->body.c_str() + at + 1);
  }

  // Roles assumed so far, and Route 53 requests signed with a role's credentials.
  std::pair<int, int> assumed() const {
    adapters::common::HttpRequest request;
    request.url = apiUrl() + "/__standin/assumed";
    const auto answer = adapters::common::getHttp(request);
    if (!answer || answer->status != 200) return {-1, -1};
    const auto& b = answer->body;
    const auto first = b.find("<assumed>");
    const auto second = b.find("<signed>");
    if (first == std::string::npos || second == std::string::npos) return {-1, -1};
    return {std::atoi(b.c_str() + first + 9), std::atoi(b.c_str() + second + 8)};
  }

  // The next `count` API requests are answered 400 Throttling.
  void throttle(int count) const {
    adapters::common::HttpRequest request;
    request.url = apiUrl() + "/__standin/throttle";
    request.body = std::to_string(count);
    (void)adapters::common::postHttp(request);
  }
};

// The one stand-in a test process shares (started on first use, stopped at exit).
inline Route53StandIn& route53StandIn() {
  static Route53StandIn server;
  return server;
}

}  // namespace certsteward::testing
