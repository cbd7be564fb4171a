// HetznerStandIn: tests/support/hetzner_standin.py (under Debian's python3) on 127.0.0.1, Hetzner
// DNS as the Hetzner Cloud API serves it (zones, zone RRSets and their actions, /v1/actions) at
// apiUrl() and a DNS responder at dnsAddress(). It holds the zone kZone (id kZoneId) and a second
// zone kOtherZone (id kOtherZoneId), each with its SOA and NS RRSets naming Hetzner's name servers
// (hydrogen.ns.hetzner.com., oxygen.ns.hetzner.com., helium.ns.hetzner.de.), and takes only the
// bearer token kToken. It follows Hetzner's published Cloud API reference for what DNS-01 uses
// and refuses what the real API refuses (see the script): TXT values must be quoted strings and
// RRSet names relative to the zone ("@" for the apex). Every write answers an Action that reports
// "running" for its first kRunningPolls GET /v1/actions/{id}, then "success"; a TXT value becomes
// visible in its DNS after kVisibleAfter queries. Not the live service: see docs/operations.md.
// Stopped and removed by the destructor.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include <certsteward/adapters/common/http_client.hpp>
#include "support/child_process.hpp"
#include "support/free_port.hpp"

namespace certsteward::testing {

class HetznerStandIn : public LocalServer {
 public:
  static constexpr const char* kZone = "example.test.";
  static constexpr const char* kZoneId = "590000000000001";
  static constexpr const char* kOtherZone = "other.test.";
  static constexpr const char* kOtherZoneId = "590000000000002";
  // A Cloud API token is 64 characters.
  static constexpr const char* kToken =
      "hcloudStandinToken0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ";
  static constexpr int kVisibleAfter = 2;
  static constexpr int kRunningPolls = 1;  // RUNNING_POLLS in the script

  HetznerStandIn() {
    if (!std::filesystem::exists("/usr/bin/python3")) {
      reason_ = "python3 is not installed";
      return;
    }
    dir_ = freshServerDir("hetzner");
    port_ = freeLoopbackPort();
    dnsPort_ = freeLoopbackPort();
    pid_ = spawnLogged(
        {"/usr/bin/python3",
         std::string(CERTSTEWARD_SOURCE_DIR) + "/tests/support/hetzner_standin.py",
         std::to_string(port_), std::to_string(dnsPort_), kToken, std::to_string(kVisibleAfter),
         std::string("example.test=") + kZoneId, std::string("other.test=") + kOtherZoneId},
        dir_ / "standin.log");
    reason_ = waitUntilReady(
        pid_, dir_ / "standin.log", "the Hetzner stand-in",
        [](const std::string& text) { return text.find("listening") != std::string::npos; });
  }

  // The Cloud API: apiUrl() + "/zones", "/zones/{id_or_name}/rrsets/...", "/actions/{id}".
  std::string apiUrl() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  std::string dnsAddress() const { return "127.0.0.1:" + std::to_string(dnsPort_); }
  std::string log() const { return readLog(dir_ / "standin.log"); }

  // The next `count` API requests are answered 429 rate_limit_exceeded (RateLimit-Remaining: 0,
  // RateLimit-Reset one second ahead; no Retry-After, as the real API).
  void throttle(int count) const {
    adapters::common::HttpRequest request;
    request.url = "http://127.0.0.1:" + std::to_string(port_) + "/__standin/throttle";
    request.body = std::to_string(count);
    (void)adapters::common::postHttp(request);
  }

  // API requests answered so far (throttled ones included).
  int requests() const { return count("requests"); }
  // Writes accepted so far (each one an Action).
  int writes() const { return count("writes"); }
  // TXT values it holds, in every zone.
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
inline HetznerStandIn& hetznerStandIn() {
  static HetznerStandIn server;
  return server;
}

}  // namespace certsteward::testing
