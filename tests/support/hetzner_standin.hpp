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

#include <filesystem>
#include <string>

#include <certsteward/adapters/common/http_client.hpp>
#include "support/child_process.hpp"
#include "support/python_standin.hpp"

namespace certsteward::testing {

class HetznerStandIn : public PythonStandIn {
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
    launch("the Hetzner stand-in", "hetzner_standin.py",
           {kToken, std::to_string(kVisibleAfter), std::string("example.test=") + kZoneId,
            std::string("other.test=") + kOtherZoneId});
  }

  // The Cloud API: apiUrl() + "/zones", "/zones/{id_or_name}/rrsets/...", "/actions/{id}".
  std::string apiUrl() const { return base() + "/v1"; }

  // The next `count` API requests are answered 429 rate_limit_exceeded (RateLimit-Remaining: 0,
  // RateLimit-Reset one second ahead; no Retry-After, as the real API).
  void throttle(int count) const { control("throttle", std::to_string(count)); }

  // API requests answered so far (throttled ones included).
  int requests() const { return counted("requests"); }
  // Writes accepted so far (each one an Action).
  int writes() const { return counted("writes"); }
  // TXT values it holds, in every zone.
  int records() const { return counted("records"); }
};

// The one stand-in a test process shares (started on first use, stopped at exit).
inline HetznerStandIn& hetznerStandIn() {
  static HetznerStandIn server;
  return server;
}

}  // namespace certsteward::testing
