// Issuance end to end through the DNS providers beyond bind9: Pebble validates DNS-01 by asking
// the zone's own server, so a certificate for a name and its wildcard is issued with the challenge
// records written by RFC 2136 to a real Knot DNS, through the PowerDNS API (a real pdns_server),
// and through the Cloudflare, DigitalOcean, Hetzner, Azure, Google Cloud DNS and OVHcloud
// stand-ins (whose DNS responders Pebble queries).
// Each gets a Pebble of its own, started here on 127.0.0.1 with that server as its resolver.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include <certsteward/adapters/acme/acme_crypto.hpp>
#include <certsteward/adapters/acme/acme_issuer.hpp>
#include <certsteward/adapters/dns/dns_provider_factory.hpp>
#include <certsteward/adapters/dns/resolver_dns_lookup.hpp>
#include "integration/acme_fixture.hpp"
#include "support/azure_standin.hpp"
#include "support/chain_verify.hpp"
#include "support/cloudflare_standin.hpp"
#include "support/digitalocean_standin.hpp"
#include "support/gcloud_standin.hpp"
#include "support/hetzner_standin.hpp"
#include "support/knot_server.hpp"
#include "support/ovh_standin.hpp"
#include "support/pdns_server.hpp"

using namespace certsteward;
using adapters::acme::AcmeIssuer;
using testing::PebbleServer;
using namespace testing::acme_world;

namespace {

adapters::dns::DefaultDnsProviderFactory& factory() {
  static adapters::dns::DefaultDnsProviderFactory f{
      adapters::dns::DnsTimeouts{std::chrono::milliseconds{5000}, std::chrono::milliseconds{50},
                                 std::chrono::milliseconds{1000}}};
  return f;
}

// `inner` with every record placed in example.test, as the service's zone routing does.
class InExampleZone : public ports::DnsProvider {
 public:
  explicit InExampleZone(ports::DnsProvider& inner) : inner_(inner) {}
  domain::Status present(const ports::TxtRecord& r) override { return inner_.present(inZone(r)); }
  domain::Status cleanup(const ports::TxtRecord& r) override { return inner_.cleanup(inZone(r)); }
  domain::Status waitVisible(const ports::TxtRecord& r, domain::Duration t) override {
    return inner_.waitVisible(inZone(r), t);
  }

 private:
  static ports::TxtRecord inZone(ports::TxtRecord r) {
    r.zone = "example.test.";
    return r;
  }
  ports::DnsProvider& inner_;
};

// Issues www.example.test and *.example.test from a Pebble that resolves through
// `dnsServer`, with `credential`'s provider writing the records, and checks the chain.
void issuesThrough(const std::string& dnsServer, const domain::DnsCredential& credential,
                   const std::string& secret,
                   adapters::dns::DefaultDnsProviderFactory& providers = factory()) {
  PebbleServer ca(testing::PebbleOptions{dnsServer, {}, 0});
  REQUIRE_MESSAGE(ca.available(), ca.reason());
  auto provider = providers.make(credential, secret);
  REQUIRE_MESSAGE(provider.ok(), (provider.ok() ? "" : provider.error().message));
  AcmeIssuer issuer(box(), settings(ca));
  auto a = account(ca, "providers@example.test");
  auto state = issuer.registerAccount(a);
  REQUIRE_MESSAGE(state.ok(), (state.ok() ? "" : state.error().message));
  a.account_url = state->account_url;
  a.key_sealed = state->key_sealed;
  a.status = state->status;
  InExampleZone zone(**provider);
  auto issued =
      issuer.issue({a, {"www.example.test", "*.example.test"}, domain::KeyType::ecdsa_p256}, zone);
  REQUIRE_MESSAGE(issued.ok(),
                  (issued.ok() ? std::string() : issued.error().message + "\n" + ca.log()));
  CHECK(testing::chainVerifies(issued->certificate_pem, issued->chain_pem,
                               ca.managementGet("/roots/0")));
  auto facts = adapters::acme::inspectCertificate(issued->certificate_pem);
  REQUIRE(facts.ok());
  CHECK(facts->dns_names.size() == 2);
  CHECK(std::count(facts->dns_names.begin(), facts->dns_names.end(), "www.example.test") == 1);
  CHECK(std::count(facts->dns_names.begin(), facts->dns_names.end(), "*.example.test") == 1);
}

}  // namespace

TEST_CASE("acme: a certificate issued with its records written through the PowerDNS API") {
  auto& pdns = testing::powerDns();
  REQUIRE_MESSAGE(pdns.available(), pdns.reason());
  domain::DnsCredential c;
  c.name = "pdns";
  c.provider = "powerdns";
  c.settings = {{"api_url", pdns.apiUrl()}, {"check_servers", pdns.address()}};
  issuesThrough(pdns.address(), c, testing::PowerDnsServer::kApiKey);

  // Without check_servers: the zone's NS records, asked of a resolver (PowerDNS itself here, the
  // one server that knows the zone), say where to look.
  adapters::dns::ResolverDnsLookup lookup(
      adapters::dns::DnsLookupSettings{{pdns.address()}, std::chrono::milliseconds{2000}});
  auto found =
      lookup.authoritativeServers("example.test.", static_cast<std::uint16_t>(pdns.port()));
  REQUIRE_MESSAGE(found.ok(), (found.ok() ? "" : found.error().message));
  CHECK(*found == std::vector<std::string>{pdns.address()});
  adapters::dns::DefaultDnsProviderFactory discovering{
      adapters::dns::DnsTimeouts{std::chrono::milliseconds{5000}, std::chrono::milliseconds{50},
                                 std::chrono::milliseconds{1000}},
      {},
      nullptr,
      [&](const std::string& zone) {
        return lookup.authoritativeServers(zone, static_cast<std::uint16_t>(pdns.port()));
      }};
  c.settings = {{"api_url", pdns.apiUrl()}};
  issuesThrough(pdns.address(), c, testing::PowerDnsServer::kApiKey, discovering);
  // The factory without a way to find them still asks for check_servers.
  auto refused = factory().make(c, testing::PowerDnsServer::kApiKey);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("check_servers") != std::string::npos);
}

TEST_CASE("acme: a certificate issued with its records written through Cloudflare's API") {
  auto& cloudflare = testing::cloudflareStandIn();
  REQUIRE_MESSAGE(cloudflare.available(), cloudflare.reason());
  domain::DnsCredential c;
  c.name = "cloudflare";
  c.provider = "cloudflare";
  c.settings = {{"api_url", cloudflare.apiUrl()}};
  issuesThrough(cloudflare.dnsAddress(), c, testing::CloudflareStandIn::kToken);
}

TEST_CASE("acme: a certificate issued with its records written by RFC 2136 to Knot DNS") {
  auto& knot = testing::knot();
  REQUIRE_MESSAGE(knot.available(), knot.reason());
  domain::DnsCredential c;
  c.name = "knot";
  c.provider = "rfc2136";
  c.settings = {{"server", knot.address()}, {"key_name", testing::KnotServer::kKey}};
  issuesThrough(knot.address(), c, testing::KnotServer::kSecret);
}

TEST_CASE("acme: a certificate issued with its records written through DigitalOcean's API") {
  auto& digitalOcean = testing::digitalOceanStandIn();
  REQUIRE_MESSAGE(digitalOcean.available(), digitalOcean.reason());
  domain::DnsCredential c;
  c.name = "digitalocean";
  c.provider = "digitalocean";
  c.settings = {{"api_url", digitalOcean.apiUrl()}, {"check_servers", digitalOcean.dnsAddress()}};
  issuesThrough(digitalOcean.dnsAddress(), c, testing::DigitalOceanStandIn::kToken);
}

TEST_CASE("acme: certificates issued through the Hetzner, Azure, Google Cloud and OVH APIs") {
  SUBCASE("Hetzner") {
    auto& server = testing::hetznerStandIn();
    REQUIRE_MESSAGE(server.available(), server.reason());
    domain::DnsCredential c;
    c.name = "hetzner";
    c.provider = "hetzner";
    c.settings = {{"api_url", server.apiUrl()}, {"check_servers", server.dnsAddress()}};
    issuesThrough(server.dnsAddress(), c, testing::HetznerStandIn::kToken);
  }
  SUBCASE("Azure") {
    auto& server = testing::azureStandIn();
    REQUIRE_MESSAGE(server.available(), server.reason());
    domain::DnsCredential c;
    c.name = "azure";
    c.provider = "azure";
    c.settings = {{"authority_url", server.armUrl()},
                  {"arm_url", server.armUrl()},
                  {"tenant_id", testing::AzureStandIn::kTenantId},
                  {"client_id", testing::AzureStandIn::kClientId},
                  {"subscription_id", testing::AzureStandIn::kSubscriptionId},
                  {"resource_group", testing::AzureStandIn::kResourceGroup},
                  {"check_servers", server.dnsAddress()}};
    issuesThrough(server.dnsAddress(), c, testing::AzureStandIn::kClientSecret);
  }
  SUBCASE("Google Cloud DNS") {
    auto& server = testing::gcloudStandIn();
    REQUIRE_MESSAGE(server.available(), server.reason());
    domain::DnsCredential c;
    c.name = "gcloud";
    c.provider = "gcloud";
    c.settings = {{"api_url", server.apiUrl()}, {"check_servers", server.dnsAddress()}};
    issuesThrough(server.dnsAddress(), c, server.keyFileJson());
  }
  SUBCASE("OVHcloud") {
    auto& server = testing::ovhStandIn();
    REQUIRE_MESSAGE(server.available(), server.reason());
    domain::DnsCredential c;
    c.name = "ovh";
    c.provider = "ovh";
    c.settings = {{"api_url", server.apiUrl()},
                  {"application_key", testing::OvhStandIn::kApplicationKey},
                  {"check_servers", server.dnsAddress()}};
    issuesThrough(server.dnsAddress(), c,
                  std::string(testing::OvhStandIn::kApplicationSecret) + ":" +
                      testing::OvhStandIn::kConsumerKey);
  }
}
