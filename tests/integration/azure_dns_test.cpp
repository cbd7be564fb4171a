// The Azure DNS adapter's own behaviour against the Azure stand-in (tests/support, written from
// Microsoft's references for the identity platform's client-credentials grant and ARM's record
// sets; no live service): two values of one name in one record set with only the one removed and
// the set deleted with the last, removal idempotent, the access token kept and renewed once ARM
// refuses it, a refused secret, app or tenant named without quoting the secret, the zone in its
// resource group (under another name, in a wrong group, absent), a 429 waited out as Retry-After
// says, a value visible only once the stand-in's DNS answers it, and settings refused before any
// call. The DnsProvider contract runs against the same stand-in (contract/dns_provider_suite.cpp).
#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <string>

#include <certsteward/adapters/dns/azure_dns_provider.hpp>
#include "support/azure_standin.hpp"

using namespace certsteward;
using adapters::dns::AzureDnsProvider;
using adapters::dns::AzureSettings;
using testing::AzureStandIn;

namespace {

AzureSettings settingsFor(const AzureStandIn& server) {
  AzureSettings s;
  s.authority_url = server.authorityUrl();
  s.arm_url = server.armUrl();
  s.tenant_id = AzureStandIn::kTenantId;
  s.client_id = AzureStandIn::kClientId;
  s.client_secret = AzureStandIn::kClientSecret;
  s.subscription_id = AzureStandIn::kSubscriptionId;
  s.resource_group = AzureStandIn::kResourceGroup;
  s.check_servers = {server.dnsAddress()};
  s.poll_interval = std::chrono::milliseconds{50};
  return s;
}

ports::TxtRecord txt(const std::string& label, const std::string& value) {
  return {AzureStandIn::kZone, "_acme-challenge." + label + ".example.test.", value, 60};
}

std::string messageOf(const domain::Status& s) {
  return s.ok() ? std::string() : s.error().message;
}

}  // namespace

TEST_CASE("azure: two values in one record set, one removed, the set deleted with the last") {
  auto& server = testing::azureStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  AzureDnsProvider dns(settingsFor(server));
  const auto apex = txt("shared", "azure-apex-value");
  const auto wildcard = txt("shared", "azure-wildcard-value");
  const int records = server.records();
  const int writes = server.writes();
  REQUIRE_MESSAGE(dns.present(apex).ok(), messageOf(dns.present(apex)));          // created
  REQUIRE_MESSAGE(dns.present(wildcard).ok(), messageOf(dns.present(wildcard)));  // If-Match
  CHECK(server.records() == records + 2);
  CHECK(server.writes() == writes + 2);
  const int requests = server.requests();
  CHECK(dns.present(apex).ok());  // already there: one read of the set, nothing written
  CHECK(server.requests() == requests + 1);
  CHECK(server.writes() == writes + 2);
  CHECK(dns.waitVisible(apex, std::chrono::seconds{2}).ok());
  CHECK(dns.waitVisible(wildcard, std::chrono::seconds{2}).ok());

  REQUIRE_MESSAGE(dns.cleanup(apex).ok(), messageOf(dns.cleanup(apex)));  // the set without it
  CHECK(server.records() == records + 1);
  CHECK(server.writes() == writes + 3);
  CHECK_FALSE(dns.waitVisible(apex, std::chrono::milliseconds{300}).ok());
  CHECK(dns.waitVisible(wildcard, std::chrono::seconds{2}).ok());  // the other value stays
  CHECK(dns.cleanup(apex).ok());                                   // gone already: nothing written
  CHECK(server.writes() == writes + 3);

  REQUIRE(dns.cleanup(wildcard).ok());  // the last value: the record set is deleted
  CHECK(server.records() == records);
  CHECK(server.writes() == writes + 4);
  CHECK(dns.cleanup(wildcard).ok());  // no record set at all
  CHECK(server.writes() == writes + 4);
  CHECK_FALSE(dns.waitVisible(wildcard, std::chrono::milliseconds{300}).ok());

  // The zone's own name: the record set "@".
  const ports::TxtRecord top{AzureStandIn::kZone, AzureStandIn::kZone, "azure-top-value", 60};
  REQUIRE_MESSAGE(dns.present(top).ok(), messageOf(dns.present(top)));
  CHECK(dns.waitVisible(top, std::chrono::seconds{2}).ok());
  REQUIRE(dns.cleanup(top).ok());
  CHECK_FALSE(dns.waitVisible(top, std::chrono::milliseconds{300}).ok());
}

TEST_CASE("azure: the access token is kept, and renewed once when ARM refuses it") {
  auto& server = testing::azureStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  AzureDnsProvider dns(settingsFor(server));
  const auto record = txt("token", "azure-token-value");
  const int tokens = server.tokens();
  REQUIRE_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
  CHECK(server.tokens() == tokens + 1);
  REQUIRE(dns.cleanup(record).ok());
  REQUIRE(dns.present(record).ok());
  CHECK(server.tokens() == tokens + 1);  // the one token, kept

  server.expireTokens();  // ARM answers 401 ExpiredAuthenticationToken to it from now on
  REQUIRE_MESSAGE(dns.cleanup(record).ok(), messageOf(dns.cleanup(record)));
  CHECK(server.tokens() == tokens + 2);  // renewed once, then kept again
  CHECK_FALSE(dns.waitVisible(record, std::chrono::milliseconds{300}).ok());
  REQUIRE(dns.present(record).ok());
  REQUIRE(dns.cleanup(record).ok());
  CHECK(server.tokens() == tokens + 2);
}

TEST_CASE("azure: a refused secret, app or tenant is permission_denied, the secret not quoted") {
  auto& server = testing::azureStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  const auto record = txt("denied", "azure-denied-value");
  {
    auto s = settingsFor(server);
    s.client_secret = "Qx8Q~not.the-Secret_0123456789abcdefghijk";
    AzureDnsProvider dns(s);
    const auto refused = dns.present(record);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::permission_denied);
    CHECK(refused.error().message.find("Azure") != std::string::npos);
    CHECK(refused.error().message.find("secret") != std::string::npos);
    CHECK(refused.error().message.find(s.client_secret) == std::string::npos);
    CHECK(refused.error().message.find("Qx8Q") == std::string::npos);
    CHECK(refused.error().message.find(AzureStandIn::kClientSecret) == std::string::npos);
  }
  {
    auto s = settingsFor(server);
    s.client_id = "0b6f1c4e-1111-4111-8111-00000000beef";  // no such app in the tenant
    AzureDnsProvider dns(s);
    const auto refused = dns.present(record);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::permission_denied);
    CHECK(refused.error().message.find("client_id") != std::string::npos);
    CHECK(refused.error().message.find(AzureStandIn::kClientSecret) == std::string::npos);
  }
  {
    auto s = settingsFor(server);
    s.tenant_id = "72f988bf-0000-4000-8000-00000000dead";  // no such tenant
    AzureDnsProvider dns(s);
    const auto refused = dns.present(record);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::permission_denied);
    CHECK(refused.error().message.find("tenant_id") != std::string::npos);
  }
}

TEST_CASE("azure: the zone in its resource group, under another name, in a wrong group, absent") {
  auto& server = testing::azureStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  {
    // The project's zone sub.other.test lives in the Azure zone other.test.
    auto s = settingsFor(server);
    s.resource_group = AzureStandIn::kOtherResourceGroup;
    s.zone_name = "other.test";
    AzureDnsProvider dns(s);
    const ports::TxtRecord record{"sub.other.test.", "_acme-challenge.sub.other.test.",
                                  "azure-zone-name-value", 60};
    REQUIRE_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
    CHECK(dns.waitVisible(record, std::chrono::seconds{2}).ok());
    REQUIRE(dns.cleanup(record).ok());
    CHECK_FALSE(dns.waitVisible(record, std::chrono::milliseconds{300}).ok());
    // A name outside that Azure zone is refused, saying so.
    const auto outside = dns.present(txt("outside", "azure-outside-value"));
    REQUIRE_FALSE(outside.ok());
    CHECK(outside.error().code == domain::ErrorCode::invalid_argument);
    CHECK(outside.error().message.find("zone_name") != std::string::npos);
  }
  {
    auto s = settingsFor(server);
    s.resource_group = AzureStandIn::kOtherResourceGroup;  // example.test is not there
    AzureDnsProvider dns(s);
    const auto refused = dns.present(txt("wrong-group", "azure-wrong-group-value"));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("no DNS zone example.test") != std::string::npos);
    CHECK(refused.error().message.find(AzureStandIn::kOtherResourceGroup) != std::string::npos);
  }
  {
    auto s = settingsFor(server);
    s.resource_group = "rg-missing";
    AzureDnsProvider dns(s);
    const auto refused = dns.present(txt("no-group", "azure-no-group-value"));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("resource_group") != std::string::npos);
  }
  {
    auto s = settingsFor(server);
    s.subscription_id = "5b1c0de0-2222-4222-8222-00000000beef";
    AzureDnsProvider dns(s);
    const auto refused = dns.present(txt("no-subscription", "azure-no-subscription-value"));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("subscription_id") != std::string::npos);
  }
  {
    AzureDnsProvider dns(settingsFor(server));
    const auto refused = dns.present({"absent.test.", "_acme-challenge.absent.test.", "v", 60});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("no DNS zone absent.test") != std::string::npos);
  }
}

TEST_CASE("azure: a 429 is waited out as Retry-After says, and reported when it lasts") {
  auto& server = testing::azureStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  auto s = settingsFor(server);
  s.max_retries = 1;
  AzureDnsProvider dns(s);
  const auto record = txt("throttled", "azure-throttled-value");

  server.throttle(1);  // one 429 (Retry-After: 1), then answers
  const auto started = std::chrono::steady_clock::now();
  CHECK_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
  CHECK(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds{900});

  server.throttle(5);  // longer than the one retry allowed
  const auto refused = dns.cleanup(record);
  server.throttle(0);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == domain::ErrorCode::unavailable);
  CHECK(refused.error().message.find("throttling") != std::string::npos);
  REQUIRE(dns.cleanup(record).ok());
  CHECK_FALSE(dns.waitVisible(record, std::chrono::milliseconds{300}).ok());
}

TEST_CASE("azure: a set another writer changes after it was read is read again, its values kept") {
  auto& server = testing::azureStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  AzureDnsProvider dns(settingsFor(server));
  const auto ours = txt("contended", "azure-contended-value");
  const int writes = server.writes();
  server.interfere(2);  // the first two reads are overtaken: 412 twice, then the write lands
  REQUIRE_MESSAGE(dns.present(ours).ok(), messageOf(dns.present(ours)));
  CHECK(server.writes() == writes + 3);  // the other writer's two, and ours
  CHECK(dns.waitVisible(ours, std::chrono::seconds{2}).ok());
  for (const char* theirs : {"other-writer-0", "other-writer-1"}) {
    CAPTURE(theirs);
    CHECK(dns.waitVisible(txt("contended", theirs), std::chrono::seconds{2}).ok());
  }
  // Removing ours leaves theirs; a set that keeps changing is given up on, in words.
  REQUIRE(dns.cleanup(ours).ok());
  CHECK(dns.waitVisible(txt("contended", "other-writer-0"), std::chrono::seconds{2}).ok());
  server.interfere(100);
  const auto refused = dns.present(ours);
  server.interfere(0);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == domain::ErrorCode::unavailable);
  CHECK(refused.error().message.find("kept changing") != std::string::npos);
  CHECK(refused.error().message.find(AzureStandIn::kClientSecret) == std::string::npos);
}

TEST_CASE("azure: a value is visible only once the name servers answer it") {
  auto& server = testing::azureStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  AzureDnsProvider writer(settingsFor(server));
  // Asks once per wait: a poll interval longer than the time given.
  auto slow = settingsFor(server);
  slow.poll_interval = std::chrono::seconds{1};
  AzureDnsProvider reader(slow);
  const auto record = txt("eventual", "azure-eventual-value");
  REQUIRE_MESSAGE(writer.present(record).ok(), messageOf(writer.present(record)));
  // ARM has the set, but the stand-in's name servers answer the value only from the third query
  // for the name on (kVisibleAfter).
  static_assert(AzureStandIn::kVisibleAfter == 2);
  CHECK_FALSE(reader.waitVisible(record, std::chrono::milliseconds{100}).ok());
  CHECK_FALSE(reader.waitVisible(record, std::chrono::milliseconds{100}).ok());
  CHECK(reader.waitVisible(record, std::chrono::milliseconds{100}).ok());
  REQUIRE(writer.cleanup(record).ok());
  CHECK_FALSE(reader.waitVisible(record, std::chrono::milliseconds{100}).ok());
}

TEST_CASE("azure: settings a call could not work with are refused before any call") {
  const auto valid = [] {
    AzureSettings s;
    s.tenant_id = AzureStandIn::kTenantId;
    s.client_id = AzureStandIn::kClientId;
    s.client_secret = "a-secret";
    s.subscription_id = AzureStandIn::kSubscriptionId;
    s.resource_group = "rg-dns";
    return s;
  };
  const struct {
    const char* what;
    std::function<void(AzureSettings&)> change;
    const char* names;
  } cases[] = {
      {"a tenant given by domain name",
       [](AzureSettings& s) { s.tenant_id = "contoso.onmicrosoft.com"; }, "tenant_id"},
      {"no client id", [](AzureSettings& s) { s.client_id.clear(); }, "client_id"},
      {"no secret", [](AzureSettings& s) { s.client_secret.clear(); }, "secret"},
      {"a secret with spaces", [](AzureSettings& s) { s.client_secret = "a secret"; }, "secret"},
      {"a subscription that is not a GUID",
       [](AzureSettings& s) { s.subscription_id = "5b1c0de0-2222-4222-8222"; }, "subscription_id"},
      {"no resource group", [](AzureSettings& s) { s.resource_group.clear(); }, "resource_group"},
      {"a resource group with a slash", [](AzureSettings& s) { s.resource_group = "rg/dns"; },
       "resource_group"},
      {"a resource group ending in a dot", [](AzureSettings& s) { s.resource_group = "rg."; },
       "resource_group"},
      {"a resource group too long",
       [](AzureSettings& s) { s.resource_group = std::string(91, 'r'); }, "resource_group"},
      {"a zone name with a space", [](AzureSettings& s) { s.zone_name = "example com"; },
       "zone_name"},
      {"plain http to another host",
       [](AzureSettings& s) { s.arm_url = "http://management.example.com"; }, "arm_url"},
      {"an authority with a query",
       [](AzureSettings& s) { s.authority_url = "https://login.microsoftonline.com/?x=1"; },
       "authority_url"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    auto s = valid();
    c.change(s);
    const auto refused = AzureDnsProvider::validate(s);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::invalid_argument);
    CHECK(refused.error().message.find(c.names) != std::string::npos);
  }
  CHECK(AzureDnsProvider::validate(valid()).ok());  // with the default addresses
  auto named = valid();
  named.zone_name = "example.com.";
  named.resource_group = "My_Group-1.(dns)";
  CHECK(AzureDnsProvider::validate(named).ok());
}
