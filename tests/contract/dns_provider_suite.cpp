// The DnsProvider contract suite (testing/contract) against the shared fake (InMemoryDns) and
// against this build's factory making RFC 2136 providers for the real bind9 of the integration
// tests and for a real Knot DNS, PowerDNS API providers for a real PowerDNS server, and Cloudflare,
// Route 53 and DigitalOcean providers for their stand-ins (each started once per test process, on
// 127.0.0.1).
#include <chrono>
#include <optional>
#include <utility>

#include <certsteward/adapters/dns/dns_provider_factory.hpp>
#include <certsteward/testing/fakes.hpp>
#include "integration/bind9_ready.hpp"
#include "support/azure_standin.hpp"
#include "support/cloudflare_standin.hpp"
#include "support/digitalocean_standin.hpp"
#include "support/free_port.hpp"
#include "support/gcloud_standin.hpp"
#include "support/hetzner_standin.hpp"
#include "support/knot_server.hpp"
#include "support/ovh_standin.hpp"
#include "support/pdns_server.hpp"
#include "support/route53_standin.hpp"

namespace {

using namespace certsteward;
using testing::Bind9Server;

// This build's factory, as the server makes it: its default request timeout, visibility polled
// every 50 ms.
struct FactoryHarness {
  adapters::dns::DefaultDnsProviderFactory dns{
      adapters::dns::DnsTimeouts{std::chrono::milliseconds{5000}, std::chrono::milliseconds{50},
                                 std::chrono::milliseconds{1000}}};
  ports::DnsProviderFactory& factory() { return dns; }
};

// The fake as a build that drives rfc2136 only (by default it makes a provider of any kind).
struct InMemoryDnsHarness {
  testing::InMemoryDns dns{std::vector<std::string>{"rfc2136"}};
  InMemoryDnsHarness() { dns.requireSecret("the TSIG secret"); }
  bool available() { return true; }
  std::string reason() { return {}; }
  ports::DnsProviderFactory& factory() { return dns; }
  domain::DnsCredential credential() {
    domain::DnsCredential c;
    c.name = "memory";
    c.provider = "rfc2136";
    return c;
  }
  std::string secret() { return "the TSIG secret"; }
  std::string wrongSecret() { return "not the TSIG secret"; }
  std::string zone() { return "example.test."; }
  std::optional<std::pair<domain::DnsCredential, std::string>> incomplete() { return {}; }
  void makeUnreachable() { dns.setReachable(false); }
};

struct Rfc2136Harness : FactoryHarness {
  std::string server = testing::readyBind9().address();
  bool available() {
    return true;
  }  // readyBind9() fails the case with the reason when it cannot run
  std::string reason() { return {}; }
  domain::DnsCredential credential() {
    domain::DnsCredential c;
    c.name = "bind9";
    c.provider = "rfc2136";
    c.settings = {{"server", server}, {"key_name", Bind9Server::kKey256}};
    return c;
  }
  std::string secret() { return Bind9Server::kSecret256; }
  std::string wrongSecret() { return "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="; }
  std::string zone() { return std::string(Bind9Server::kZone) + "."; }
  std::optional<std::pair<domain::DnsCredential, std::string>> incomplete() {
    auto c = credential();
    c.settings.erase("server");
    return std::pair{c, std::string("server")};
  }
  void makeUnreachable() { server = "127.0.0.1:" + std::to_string(testing::freeLoopbackPort()); }
};

// RFC 2136 against a second real server: Knot DNS.
struct KnotHarness : FactoryHarness {
  testing::KnotServer& server = testing::knot();
  std::string address = server.available() ? server.address() : std::string();
  bool available() { return server.available(); }
  std::string reason() { return server.reason(); }
  domain::DnsCredential credential() {
    domain::DnsCredential c;
    c.name = "knot";
    c.provider = "rfc2136";
    c.settings = {{"server", address}, {"key_name", testing::KnotServer::kKey}};
    return c;
  }
  std::string secret() { return testing::KnotServer::kSecret; }
  std::string wrongSecret() { return "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="; }
  std::string zone() { return testing::KnotServer::kZone; }
  std::optional<std::pair<domain::DnsCredential, std::string>> incomplete() {
    auto c = credential();
    c.settings.erase("key_name");
    return std::pair{c, std::string("key_name")};
  }
  void makeUnreachable() { address = "127.0.0.1:" + std::to_string(testing::freeLoopbackPort()); }
};

struct PowerDnsHarness : FactoryHarness {
  testing::PowerDnsServer& server = testing::powerDns();
  std::string apiUrl = server.available() ? server.apiUrl() : std::string();
  bool available() { return server.available(); }
  std::string reason() { return server.reason(); }
  domain::DnsCredential credential() {
    domain::DnsCredential c;
    c.name = "pdns";
    c.provider = "powerdns";
    c.settings = {{"api_url", apiUrl}, {"check_servers", server.address()}};
    return c;
  }
  std::string secret() { return testing::PowerDnsServer::kApiKey; }
  std::string wrongSecret() { return "not-the-pdns-api-key"; }
  std::string zone() { return testing::PowerDnsServer::kZone; }
  std::optional<std::pair<domain::DnsCredential, std::string>> incomplete() {
    auto c = credential();
    c.settings.erase("check_servers");
    return std::pair{c, std::string("check_servers")};
  }
  void makeUnreachable() {
    apiUrl = "http://127.0.0.1:" + std::to_string(testing::freeLoopbackPort());
  }
};

// Cloudflare's API as the stand-in plays it (no live service runs here): the zone found by name,
// its name servers (the stand-in's DNS) asked for visibility.
struct CloudflareHarness : FactoryHarness {
  testing::CloudflareStandIn& server = testing::cloudflareStandIn();
  std::string apiUrl = server.available() ? server.apiUrl() : std::string();
  bool available() { return server.available(); }
  std::string reason() { return server.reason(); }
  domain::DnsCredential credential() {
    domain::DnsCredential c;
    c.name = "cloudflare";
    c.provider = "cloudflare";
    c.settings = {{"api_url", apiUrl}};
    return c;
  }
  std::string secret() { return testing::CloudflareStandIn::kToken; }
  std::string wrongSecret() { return "not-the-cloudflare-token"; }
  std::string zone() { return testing::CloudflareStandIn::kZone; }
  std::optional<std::pair<domain::DnsCredential, std::string>> incomplete() {
    auto c = credential();
    c.settings["zone_id"] = "example.test";  // a name where the id goes
    return std::pair{c, std::string("zone_id")};
  }
  void makeUnreachable() {
    apiUrl = "http://127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) + "/client/v4";
  }
};

// Route 53's API as the stand-in plays it (no live service runs here): every call signed, the
// public zone found by name, a change waited for until INSYNC.
struct Route53Harness : FactoryHarness {
  testing::Route53StandIn& server = testing::route53StandIn();
  std::string apiUrl = server.available() ? server.apiUrl() : std::string();
  bool available() { return server.available(); }
  std::string reason() { return server.reason(); }
  domain::DnsCredential credential() {
    domain::DnsCredential c;
    c.name = "route53";
    c.provider = "route53";
    c.settings = {{"api_url", apiUrl}, {"access_key_id", testing::Route53StandIn::kAccessKeyId}};
    return c;
  }
  std::string secret() { return testing::Route53StandIn::kSecretKey; }
  std::string wrongSecret() { return "not-the-route53-secret-key"; }
  std::string zone() { return testing::Route53StandIn::kZone; }
  std::optional<std::pair<domain::DnsCredential, std::string>> incomplete() {
    auto c = credential();
    c.settings.erase("access_key_id");
    return std::pair{c, std::string("access_key_id")};
  }
  void makeUnreachable() {
    apiUrl = "http://127.0.0.1:" + std::to_string(testing::freeLoopbackPort());
  }
};

// DigitalOcean's API as the stand-in plays it (no live service runs here): records named within
// the domain, visibility asked of the stand-in's DNS in place of DigitalOcean's name servers.
struct DigitalOceanHarness : FactoryHarness {
  testing::DigitalOceanStandIn& server = testing::digitalOceanStandIn();
  std::string apiUrl = server.available() ? server.apiUrl() : std::string();
  bool available() { return server.available(); }
  std::string reason() { return server.reason(); }
  domain::DnsCredential credential() {
    domain::DnsCredential c;
    c.name = "digitalocean";
    c.provider = "digitalocean";
    c.settings = {{"api_url", apiUrl}, {"check_servers", server.dnsAddress()}};
    return c;
  }
  std::string secret() { return testing::DigitalOceanStandIn::kToken; }
  std::string wrongSecret() { return "dop_v1_not-the-token"; }
  std::string zone() { return testing::DigitalOceanStandIn::kZone; }
  std::optional<std::pair<domain::DnsCredential, std::string>> incomplete() {
    auto c = credential();
    c.settings["api_url"] = "http://api.example.com/v2";  // plain http to another host
    return std::pair{c, std::string("api_url")};
  }
  void makeUnreachable() {
    apiUrl = "http://127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) + "/v2";
  }
};

}  // namespace

// Hetzner DNS in the Hetzner Cloud API as the stand-in plays it (no live service runs here): the
// zone found by name, each change's Action waited for, visibility asked of the stand-in's DNS in
// place of the zone's Hetzner name servers.
struct HetznerHarness : FactoryHarness {
  testing::HetznerStandIn& server = testing::hetznerStandIn();
  std::string apiUrl = server.available() ? server.apiUrl() : std::string();
  bool available() { return server.available(); }
  std::string reason() { return server.reason(); }
  domain::DnsCredential credential() {
    domain::DnsCredential c;
    c.name = "hetzner";
    c.provider = "hetzner";
    c.settings = {{"api_url", apiUrl}, {"check_servers", server.dnsAddress()}};
    return c;
  }
  std::string secret() { return testing::HetznerStandIn::kToken; }
  std::string wrongSecret() { return "hcloud-not-the-token"; }
  std::string zone() { return testing::HetznerStandIn::kZone; }
  std::optional<std::pair<domain::DnsCredential, std::string>> incomplete() {
    auto c = credential();
    c.settings["zone_id"] = "example.test";  // a name where the numeric id goes
    return std::pair{c, std::string("zone_id")};
  }
  void makeUnreachable() {
    apiUrl = "http://127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) + "/v1";
  }
};

// Azure DNS as the stand-in plays it (no live service runs here): a token from the identity
// platform's client-credentials grant, the zone's TXT record sets written through ARM with
// etags, visibility asked of the stand-in's DNS in place of the zone's Azure name servers.
struct AzureHarness : FactoryHarness {
  testing::AzureStandIn& server = testing::azureStandIn();
  std::string base = server.available() ? server.armUrl() : std::string();
  bool available() { return server.available(); }
  std::string reason() { return server.reason(); }
  domain::DnsCredential credential() {
    domain::DnsCredential c;
    c.name = "azure";
    c.provider = "azure";
    c.settings = {{"authority_url", base},
                  {"arm_url", base},
                  {"tenant_id", testing::AzureStandIn::kTenantId},
                  {"client_id", testing::AzureStandIn::kClientId},
                  {"subscription_id", testing::AzureStandIn::kSubscriptionId},
                  {"resource_group", testing::AzureStandIn::kResourceGroup},
                  {"check_servers", server.dnsAddress()}};
    return c;
  }
  std::string secret() { return testing::AzureStandIn::kClientSecret; }
  std::string wrongSecret() { return "Qx8Q~not-the-azure-client-secret"; }
  std::string zone() { return testing::AzureStandIn::kZone; }
  std::optional<std::pair<domain::DnsCredential, std::string>> incomplete() {
    auto c = credential();
    c.settings.erase("tenant_id");
    return std::pair{c, std::string("tenant_id")};
  }
  void makeUnreachable() {
    base = "http://127.0.0.1:" + std::to_string(testing::freeLoopbackPort());
  }
};

// Google Cloud DNS as the stand-in plays it (no live service runs here): a token for the key
// file's assertion, the public zone found past a private one, a change waited for until done,
// visibility asked of the stand-in's DNS in place of Google's name servers.
struct GCloudHarness : FactoryHarness {
  testing::GCloudStandIn& server = testing::gcloudStandIn();
  std::string apiUrl = server.available() ? server.apiUrl() : std::string();
  bool available() { return server.available(); }
  std::string reason() { return server.reason(); }
  domain::DnsCredential credential() {
    domain::DnsCredential c;
    c.name = "gcloud";
    c.provider = "gcloud";
    c.settings = {{"api_url", apiUrl}, {"check_servers", server.dnsAddress()}};
    return c;
  }
  std::string secret() { return server.keyFileJson(); }
  std::string wrongSecret() { return server.revokedKeyFileJson(); }  // a deleted key
  std::string zone() { return testing::GCloudStandIn::kZone; }
  std::optional<std::pair<domain::DnsCredential, std::string>> incomplete() {
    auto c = credential();
    c.settings["managed_zone"] = "example.test.";  // a DNS name where the zone's name goes
    return std::pair{c, std::string("managed_zone")};
  }
  void makeUnreachable() {
    apiUrl = "http://127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) + "/dns/v1";
  }
};

// The OVHcloud API as the stand-in plays it (no live service runs here): every call signed at
// the server's time, each change published by a refresh, visibility asked of the stand-in's DNS
// in place of OVH's name servers.
struct OvhHarness : FactoryHarness {
  testing::OvhStandIn& server = testing::ovhStandIn();
  std::string apiUrl = server.available() ? server.apiUrl() : std::string();
  bool available() { return server.available(); }
  std::string reason() { return server.reason(); }
  domain::DnsCredential credential() {
    domain::DnsCredential c;
    c.name = "ovh";
    c.provider = "ovh";
    c.settings = {{"api_url", apiUrl},
                  {"application_key", testing::OvhStandIn::kApplicationKey},
                  {"check_servers", server.dnsAddress()}};
    return c;
  }
  std::string secret() {
    return std::string(testing::OvhStandIn::kApplicationSecret) + ":" +
           testing::OvhStandIn::kConsumerKey;
  }
  std::string wrongSecret() {
    return std::string("NotTheApplicationSecret012345678:") + testing::OvhStandIn::kConsumerKey;
  }
  std::string zone() { return testing::OvhStandIn::kZone; }
  std::optional<std::pair<domain::DnsCredential, std::string>> incomplete() {
    auto c = credential();
    c.settings.erase("application_key");
    return std::pair{c, std::string("application_key")};
  }
  void makeUnreachable() {
    apiUrl = "http://127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) + "/1.0";
  }
};

#define CERTSTEWARD_DNS_HARNESSES                                                      \
  InMemoryDnsHarness, Rfc2136Harness, KnotHarness, PowerDnsHarness, CloudflareHarness, \
      Route53Harness, DigitalOceanHarness, HetznerHarness, AzureHarness, GCloudHarness, OvhHarness
#include <certsteward/testing/contract/dns_provider_contract.hpp>
