// AzureStandIn: tests/support/azure_standin.py (under Debian's python3) on 127.0.0.1, on one
// port: the Microsoft identity platform's client-credentials token endpoint under authorityUrl()
// (POST authorityUrl() + "/" + kTenantId + "/oauth2/v2.0/token") and Azure Resource Manager's DNS
// API under armUrl() (the same base; apiUrl() too), plus a DNS responder at dnsAddress(). For the
// subscription kSubscriptionId it holds the public zone kZone in the resource group kResourceGroup
// and kOtherZone in kOtherResourceGroup, each with its SOA and NS record sets naming Azure's name
// servers (ns1-01.azure-dns.com. ...), and it issues tokens only to the app kClientId with the
// secret kClientSecret in the tenant kTenantId, for the scope kScope (ARM takes only tokens it
// issued for ARM's audience). It follows Microsoft's published references for what DNS-01 uses and
// refuses what the real services refuse (see the script): api-version is required (kApiVersion),
// record set names are relative to the zone ("@" for the apex), etags are checked on If-Match. A
// TXT value becomes visible in its DNS after kVisibleAfter queries. Not the live service: see
// docs/operations.md. Stopped and removed by the destructor.
#pragma once

#include <filesystem>
#include <string>

#include <certsteward/adapters/common/http_client.hpp>
#include "support/child_process.hpp"
#include "support/python_standin.hpp"

namespace certsteward::testing {

class AzureStandIn : public PythonStandIn {
 public:
  static constexpr const char* kZone = "example.test.";
  static constexpr const char* kOtherZone = "other.test.";
  static constexpr const char* kTenantId = "72f988bf-0000-4000-8000-00000000a2e1";
  static constexpr const char* kClientId = "0b6f1c4e-1111-4111-8111-0000000c11e7";
  static constexpr const char* kClientSecret = "Qx8Q~standin.Secret-Value_0123456789abcdefg";
  static constexpr const char* kSubscriptionId = "5b1c0de0-2222-4222-8222-00000000cafe";
  static constexpr const char* kResourceGroup = "rg-dns";
  static constexpr const char* kOtherResourceGroup = "rg-other";
  static constexpr const char* kScope = "https://management.azure.com/.default";
  static constexpr const char* kApiVersion = "2018-05-01";
  static constexpr int kVisibleAfter = 2;

  AzureStandIn() {
    launch("the Azure stand-in", "azure_standin.py",
           {kTenantId, kClientId, kClientSecret, kSubscriptionId, std::to_string(kVisibleAfter),
            std::string(kResourceGroup) + "/example.test",
            std::string(kOtherResourceGroup) + "/other.test"});
  }

  // The Microsoft identity platform's base (login.microsoftonline.com for the real one):
  // authorityUrl() + "/{tenant}/oauth2/v2.0/token".
  std::string authorityUrl() const { return base(); }
  // Azure Resource Manager's base (management.azure.com for the real one):
  // armUrl() + "/subscriptions/{sub}/resourceGroups/{rg}/providers/Microsoft.Network/dnsZones/...".
  std::string armUrl() const { return base(); }
  std::string apiUrl() const { return armUrl(); }

  // The next `count` ARM requests are answered 429 SubscriptionRequestsThrottled with
  // Retry-After: 1 (the token endpoint is not throttled).
  void throttle(int count) const { control("throttle", std::to_string(count)); }
  // Every access token issued so far stops working (401 ExpiredAuthenticationToken).
  void expireTokens() const { control("expire-tokens", ""); }
  // The next `count` reads of a TXT record set are each followed by another writer's change to
  // it (a value of its own added, a new etag): a write based on that read meets 412.
  void interfere(int count) const { control("interfere", std::to_string(count)); }

  // ARM requests answered so far (throttled ones included).
  int requests() const { return counted("requests"); }
  // Access tokens issued so far.
  int tokens() const { return counted("tokens"); }
  // Record set writes accepted so far (PUT, PATCH, and DELETE of a set that was there).
  int writes() const { return counted("writes"); }
  // TXT records it holds (entries of TXTRecords), in every zone.
  int records() const { return counted("records"); }
};

// The one stand-in a test process shares (started on first use, stopped at exit).
inline AzureStandIn& azureStandIn() {
  static AzureStandIn server;
  return server;
}

}  // namespace certsteward::testing
