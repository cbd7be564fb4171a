// acme-dns against its stand-in, whose accounts live in bind9's zone delegated.test: an account
// registered through the factory, two values kept for one name (a wildcard and its apex) and
// seen by bind9, refusals in words without the key, a record for another name refused; and a
// certificate from Pebble for acme.example.test and its wildcard, whose `_acme-challenge` bind9
// delegates by CNAME to the account: the zone routing follows it into the project's only zone,
// the account's full domain.
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include <certsteward/adapters/acme/acme_crypto.hpp>
#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/dns/acmedns_dns_provider.hpp>
#include <certsteward/adapters/dns/dns_provider_factory.hpp>
#include <certsteward/adapters/dns/resolver_dns_lookup.hpp>
#include <certsteward/adapters/runtime/thread_background.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/services/zone_routed_dns.hpp>
#include "integration/acme_fixture.hpp"
#include "support/acmedns_standin.hpp"
#include "support/chain_verify.hpp"

using namespace certsteward;
using adapters::dns::DefaultDnsProviderFactory;
using testing::AcmeDnsStandIn;
using testing::Bind9Server;
using testing::readyBind9;
using namespace testing::acme_world;
using namespace std::chrono_literals;

namespace {

DefaultDnsProviderFactory& factory() {
  static DefaultDnsProviderFactory f{adapters::dns::DnsTimeouts{2000ms, 50ms, 1000ms}};
  return f;
}

// An account registered at `server` through the factory, as the service registers one.
domain::DnsCredential registered(const AcmeDnsStandIn& server, std::string& secret) {
  domain::DnsCredential draft;
  draft.id = "cred-acmedns";
  draft.project_id = "p1";
  draft.name = "acme-dns";
  draft.provider = "acmedns";
  draft.settings = {{"api_url", server.apiUrl()}, {"check_servers", readyBind9().address()}};
  auto account = factory().registerAccount(draft);
  REQUIRE_MESSAGE(account.ok(), (account.ok() ? "" : account.error().message));
  draft.settings = account->settings;
  secret = account->secret;
  CHECK(account->served_name ==
        std::string(AcmeDnsStandIn::kFirstSubdomain) + "." + AcmeDnsStandIn::kZone);
  CHECK(draft.settings.at("fulldomain") == account->served_name);
  CHECK(secret.size() == 40);
  return draft;
}

const char* kValueA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const char* kValueB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

}  // namespace

TEST_CASE("acmedns: a registered account takes two values for its name, seen by the DNS") {
  AcmeDnsStandIn server(readyBind9());
  REQUIRE_MESSAGE(server.available(), server.reason());
  std::string secret;
  const auto credential = registered(server, secret);
  auto provider = factory().make(credential, secret);
  REQUIRE_MESSAGE(provider.ok(), (provider.ok() ? "" : provider.error().message));
  const std::string full = credential.settings.at("fulldomain") + ".";
  const ports::TxtRecord a{full, full, kValueA, 60};
  const ports::TxtRecord b{full, full, kValueB, 60};
  REQUIRE((*provider)->present(a).ok());
  REQUIRE((*provider)->present(b).ok());
  CHECK((*provider)->waitVisible(a, 5s).ok());
  CHECK((*provider)->waitVisible(b, 5s).ok());
  CHECK((*provider)->cleanup(a).ok());  // acme-dns has no delete: nothing to do, no error
  // A third value would push out the first: refused in words, nothing sent.
  auto third = (*provider)->present({full, full, std::string(43, 'c'), 60});
  REQUIRE_FALSE(third.ok());
  CHECK(third.error().code == domain::ErrorCode::failed_precondition);
  CHECK(third.error().message.find("two values per account") != std::string::npos);
  CHECK(server.stats().find("\"updates\": 2") != std::string::npos);

  // A record for any other name is not this account's.
  const ports::TxtRecord other{"delegated.test.", "www.delegated.test.", kValueA, 60};
  auto refused = (*provider)->present(other);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
  CHECK(refused.error().message.find(credential.settings.at("fulldomain")) != std::string::npos);

  // A wrong key: refused in words, the key never quoted.
  auto wrong = factory().make(credential, std::string(40, 'x'));
  REQUIRE(wrong.ok());
  auto denied = (*wrong)->present(a);
  REQUIRE_FALSE(denied.ok());
  CHECK(denied.error().code == domain::ErrorCode::permission_denied);
  CHECK(denied.error().message.find("acme-dns refused the account") != std::string::npos);
  CHECK(denied.error().message.find(std::string(40, 'x')) == std::string::npos);
  CHECK(denied.error().message.find(secret) == std::string::npos);

  // The server in trouble: unavailable, so the attempt is tried again later.
  server.failUpdates(1);
  auto down = (*provider)->present(a);
  REQUIRE_FALSE(down.ok());
  CHECK(down.error().code == domain::ErrorCode::unavailable);
}

TEST_CASE("acmedns: settings that cannot work are refused before anything is sent") {
  adapters::dns::AcmeDnsSettings s;
  s.api_url = "http://auth.example.org";  // plain http off this machine
  s.username = "c36f50e8-4632-44f0-83fe-e070fef28a10";
  s.subdomain = "8e5700ea-a4bf-41c7-8a77-e990661dcc6a";
  s.fulldomain = "8e5700ea-a4bf-41c7-8a77-e990661dcc6a.auth.example.org";
  s.password = "k";
  CHECK_FALSE(adapters::dns::AcmeDnsProvider::validate(s).ok());
  s.api_url = "https://auth.example.org/register";  // a path
  CHECK_FALSE(adapters::dns::AcmeDnsProvider::validate(s).ok());
  s.api_url = "https://auth.example.org";
  CHECK(adapters::dns::AcmeDnsProvider::validate(s).ok());
  s.fulldomain = "other.auth.example.org";  // not the subdomain's
  CHECK_FALSE(adapters::dns::AcmeDnsProvider::validate(s).ok());
  s.fulldomain = "8e5700ea-a4bf-41c7-8a77-e990661dcc6a.auth.example.org";
  s.username = "not-a-uuid";
  CHECK_FALSE(adapters::dns::AcmeDnsProvider::validate(s).ok());

  domain::DnsCredential draft;
  draft.provider = "acmedns";
  draft.settings = {{"api_url", "http://auth.example.org"}};
  auto refused = factory().registerAccount(draft);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == domain::ErrorCode::invalid_argument);
  draft.provider = "rfc2136";
  CHECK(factory().registerAccount(draft).error().code == domain::ErrorCode::failed_precondition);
}

TEST_CASE("acme: a certificate issued through an acme-dns account its names delegate to") {
  AcmeDnsStandIn server(readyBind9());
  REQUIRE_MESSAGE(server.available(), server.reason());
  std::string secret;
  auto credential = registered(server, secret);
  credential.secret_sealed = *box().seal(secret);
  adapters::memory::MemoryStore store;
  REQUIRE(store.dnsCredentials().create(credential).ok());
  domain::Zone zone;  // the project's only zone: the account's full domain
  zone.id = "zone-acmedns";
  zone.project_id = "p1";
  zone.domain = credential.settings.at("fulldomain");
  zone.dns_credential_id = credential.id;
  REQUIRE(store.zones().create(zone).ok());

  auto& ca = pebble();
  adapters::acme::AcmeIssuer issuer(box(), settings(ca));
  auto a = account(ca, "acmedns@example.test");
  auto state = issuer.registerAccount(a);
  REQUIRE_MESSAGE(state.ok(), (state.ok() ? "" : state.error().message));
  a.account_url = state->account_url;
  a.key_sealed = state->key_sealed;
  a.status = state->status;

  adapters::crypto::SystemClock clock;
  adapters::runtime::ThreadBackground background;
  adapters::dns::ResolverDnsLookup lookup({{readyBind9().address()}, 500ms});
  domain::StopSignal stop;
  services::ZoneRoutedDns dns(
      {store.zones(), store.dnsCredentials(), factory(), box(), clock, background, &lookup}, "p1",
      stop);
  const std::vector<std::string> names{"acme.example.test", "*.acme.example.test"};
  auto issued = issuer.issue({a, names, domain::KeyType::ecdsa_p256}, dns);
  REQUIRE_MESSAGE(issued.ok(),
                  (issued.ok() ? std::string() : issued.error().message + "\n" + ca.log()));
  CHECK(testing::chainVerifies(issued->certificate_pem, issued->chain_pem,
                               ca.managementGet("/roots/0")));
  auto facts = adapters::acme::inspectCertificate(issued->certificate_pem);
  REQUIRE(facts.ok());
  CHECK(facts->dns_names.size() == 2);
  REQUIRE(dns.routes().size() == 1);
  CHECK(dns.routes().begin()->second.zone.id == "zone-acmedns");
  CHECK(dns.routes().begin()->second.cnames ==
        std::vector<std::string>{credential.settings.at("fulldomain")});
}
