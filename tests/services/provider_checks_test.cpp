// ProviderChecks in process with the shared fake CA and DNS: validating an ACME account
// registers it and records what the CA said (a refusal changes nothing), a key rollover needs a
// registered account and stores the new key, and the DNS credential test adds, sees and removes
// its record — each for project admins only, audited.
#include <doctest/doctest.h>

#include <certsteward/services/configuration_services.hpp>
#include <certsteward/services/provider_checks.hpp>
#include <certsteward/testing/fakes.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

struct ChecksFixture : testing::ServiceFixture {
  testing::InMemoryDns dns;
  testing::FakeIssuer ca{clock};
  ProviderChecks checks{
      {store.acmeAccounts(), store.dnsCredentials(), store.zones(), dns, ca, secrets, clock},
      work,
      access,
      audit,
      std::chrono::seconds{1}};
  AcmeAccount account;

  ChecksFixture() {
    project("p1");
    account.id = ids.next();
    account.project_id = "p1";
    account.name = "ca";
    account.directory_url = "https://fake-ca.test/dir";
    REQUIRE(store.acmeAccounts().create(account).ok());
  }
  AcmeAccount stored() { return *store.acmeAccounts().get("p1", account.id); }
};

}  // namespace

TEST_CASE("checks: validating an account registers it, a refusal changes nothing") {
  ChecksFixture fx;
  const auto operatorUser = fx.member("p1", ProjectRole::operator_);
  CHECK(fx.checks.validateAccount(operatorUser, fx.ctx(), "p1", fx.account.id).error().code ==
        ErrorCode::permission_denied);

  fx.ca.refusal = makeError(ErrorCode::failed_precondition, "CA refused the account: no");
  auto refused = fx.checks.validateAccount(fx.owner(), fx.ctx(), "p1", fx.account.id);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("CA refused") != std::string::npos);
  CHECK_FALSE(fx.stored().is_registered);

  fx.ca.refusal.reset();
  auto validated = fx.checks.validateAccount(fx.owner(), fx.ctx(), "p1", fx.account.id);
  REQUIRE(validated.ok());
  CHECK(validated->is_registered);
  CHECK(validated->status == "valid");
  CHECK(fx.stored().account_url == "https://fake-ca.test/account/1");
  CHECK(fx.stored().last_validated_at == fx.clock.now());
  CHECK(fx.audited("acme_account.validate").size() == 1);
}

TEST_CASE("checks: a key rollover needs a registered account and stores the new key") {
  ChecksFixture fx;
  CHECK(fx.checks.rolloverAccountKey(fx.owner(), fx.ctx(), "p1", fx.account.id).error().code ==
        ErrorCode::failed_precondition);
  REQUIRE(fx.checks.validateAccount(fx.owner(), fx.ctx(), "p1", fx.account.id).ok());
  auto rolled = fx.checks.rolloverAccountKey(fx.owner(), fx.ctx(), "p1", fx.account.id);
  REQUIRE(rolled.ok());
  CHECK(fx.stored().key_sealed == "fake-rolled-key-1");
  CHECK(fx.audited("acme_account.key_rollover").size() == 1);
}

TEST_CASE("checks: the DNS credential test adds, sees and removes its record in a zone") {
  ChecksFixture fx;
  ConfigurationServices config{
      {fx.store.acmeAccounts(), fx.store.dnsCredentials(), fx.store.zones(), fx.store.credentials(),
       fx.store.moduleConfigs(), fx.store.notificationChannels(), fx.store.notificationRules(),
       fx.store.distributions(), fx.secrets, fx.ids, fx.clock},
      fx.work,
      fx.access,
      fx.audit};
  DnsCredential d;
  d.name = "dns";
  d.provider = "rfc2136";
  d.settings = {{"server", "127.0.0.1:53"}, {"key_name", "certsteward"}};
  auto credential = config.dnsCredentials.create(fx.owner(), fx.ctx(), "p1", d, "c2VjcmV0");
  REQUIRE(credential.ok());
  CHECK(fx.checks.testDnsCredential(fx.owner(), fx.ctx(), "p1", credential->id).error().code ==
        ErrorCode::failed_precondition);  // no zone uses it yet
  Zone z;
  z.domain = "example.test";
  z.dns_credential_id = credential->id;
  REQUIRE(config.zones.create(fx.owner(), fx.ctx(), "p1", z, std::nullopt).ok());
  auto check = fx.checks.testDnsCredential(fx.owner(), fx.ctx(), "p1", credential->id);
  REQUIRE(check.ok());
  CHECK(check->ok);
  CHECK(check->zone == "example.test");
  REQUIRE(check->steps.size() >= 3);
  for (const auto& step : check->steps) {
    CAPTURE(step.name);
    CHECK(step.ok);
  }
  CHECK(fx.dns.published() == 1);  // it really went to the DNS server
  CHECK(fx.dns.size() == 0);       // and nothing is left behind
}
