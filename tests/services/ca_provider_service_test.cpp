// CaProviderService in process, over the memory store: providers added (custom and from
// presets) with what their directory says, the rules of their fields, who may change them,
// accounts linked to them (a bare directory URL gets a provider of its own), deletes and moves
// blocked while accounts use them, and the accounts that predate providers adopted.
#include <doctest/doctest.h>

#include <certsteward/adapters/store/codec/settings_documents.hpp>
#include <certsteward/services/ca_provider_service.hpp>
#include <certsteward/services/configuration_services.hpp>
#include <certsteward/testing/fakes.hpp>
#include "services/service_fixture.hpp"
#include "support/test_certificates.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

class DescribedIssuer : public testing::FakeIssuer {
 public:
  using FakeIssuer::FakeIssuer;
  ports::IssuerInfo described{"acme", "ACME (RFC 8555)", {"dns-01", "http-01"}, {"ari"}};
  ports::IssuerInfo info() const override { return described; }
};

const std::string kPrivateCa = "https://ca.internal.test/acme/directory";

struct ProviderFixture : testing::ServiceFixture {
  DescribedIssuer issuer{clock};
  testing::InMemoryDns dns{std::vector<std::string>{"rfc2136"}};
  adapters::codec::CaProvidersDocument document{store.settings(), clock};
  CaProviderService providers{
      {document, issuer, dns, store.projects(), store.acmeAccounts(), ids, clock},
      work,
      access,
      audit};
  ConfigurationServices config{
      {store.acmeAccounts(), store.dnsCredentials(), store.zones(), store.credentials(),
       store.moduleConfigs(), store.notificationChannels(), store.notificationRules(),
       store.distributions(), secrets, ids, clock, nullptr, &providers},
      work,
      access,
      audit};

  ProviderFixture() {
    project("p1");
    issuer.directories[kPrivateCa] = CaDirectoryMeta{
        {{"tlsserver", "45 days"}, {"shortlived", "6 days"}}, {"ca.internal.test"}, false, true};
  }

  Principal orgMember(OrgRole role) {
    User u;
    u.id = ids.next();
    u.username = "user-" + u.id;
    u.org_role = role;
    return Principal{u, "session-" + u.id};
  }

  CaProviderView custom(const std::string& name = "Internal", const std::string& url = kPrivateCa) {
    CaProvider draft;
    draft.name = name;
    draft.directory_url = url;
    auto made = providers.create(owner(), ctx(), draft);
    REQUIRE_MESSAGE(made.ok(), (made.ok() ? "" : made.error().message));
    return *made;
  }

  Result<AcmeAccount> account(const std::string& providerId, const std::string& url = "") {
    AcmeAccount a;
    a.name = "account " + ids.next();
    a.ca_provider_id = providerId;
    a.directory_url = url;
    return config.acmeAccounts.create(owner(), ctx(), "p1", a, std::nullopt);
  }
};

}  // namespace

TEST_CASE("ca providers: a custom provider takes its profiles and CAA names from its directory") {
  ProviderFixture fx;
  const auto made = fx.custom();
  CHECK(made.provider.kind == "acme");
  CHECK(made.provider.preset == "custom");
  REQUIRE(made.provider.profiles.size() == 2);
  CHECK(made.provider.profiles[0].name == "tlsserver");
  CHECK(made.provider.caa_identities == std::vector<std::string>{"ca.internal.test"});
  CHECK(made.provider.directory_read_at.has_value());
  CHECK(made.provider.directory_error.empty());
  CHECK(made.available);
  CHECK(made.issuer.challenges == std::vector<std::string>{"dns-01", "http-01"});
  CHECK(fx.audited("ca_provider.create").size() == 1);

  // Every member reads them.
  const auto listed = fx.providers.list(fx.orgMember(OrgRole::viewer));
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 1);
  CHECK(listed->front().provider.id == made.provider.id);
  CHECK(fx.providers.get(fx.orgMember(OrgRole::viewer), made.provider.id).ok());
  CHECK(fx.providers.get(fx.owner(), "nope").error().code == ErrorCode::not_found);
}

TEST_CASE("ca providers: a preset whose directory cannot be read is kept, with the reason") {
  ProviderFixture fx;
  auto draft = providerFromPreset(*findCaPreset("zerossl"));
  auto made = fx.providers.create(fx.owner(), fx.ctx(), draft);
  REQUIRE(made.ok());
  CHECK(made->provider.eab_required);
  CHECK(made->provider.caa_identities == std::vector<std::string>{"sectigo.com"});
  CHECK(made->provider.directory_error.find("cannot be reached") != std::string::npos);
  CHECK(made->provider.profiles.empty());

  // Once it answers, refresh reads its profiles.
  fx.issuer.directories[draft.directory_url] = CaDirectoryMeta{{{"classic", ""}}, {}, true, false};
  auto read = fx.providers.refresh(fx.owner(), fx.ctx(), made->provider.id);
  REQUIRE(read.ok());
  CHECK(read->provider.directory_error.empty());
  REQUIRE(read->provider.profiles.size() == 1);
  CHECK(read->provider.caa_identities == std::vector<std::string>{"sectigo.com"});  // kept
  CHECK(fx.audited("ca_provider.refresh").size() == 1);
}

TEST_CASE("ca providers: broken fields are refused, naming the field, with nothing stored") {
  struct Case {
    const char* what;
    std::function<void(CaProvider&)> change;
    const char* field;
  };
  const Case cases[] = {
      {"an empty name", [](CaProvider& p) { p.name = ""; }, "name"},
      {"a name with a control character", [](CaProvider& p) { p.name = "a\x01"; }, "name"},
      {"plain http", [](CaProvider& p) { p.directory_url = "http://ca.test/dir"; },
       "directory_url"},
      {"a URL with spaces", [](CaProvider& p) { p.directory_url = "https://ca.test/a b"; },
       "directory_url"},
      {"a URL with a password",
       [](CaProvider& p) { p.directory_url = "https://user:secret@ca.test/dir"; }, "directory_url"},
      {"another kind", [](CaProvider& p) { p.kind = "msca"; }, "kind"},
      {"an unknown preset", [](CaProvider& p) { p.preset = "nope"; }, "preset"},
      {"a trust bundle that is no certificate",
       [](CaProvider& p) {
         p.trust_bundle = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
       },
       "trust_bundle"},
      {"a CAA name with a wildcard", [](CaProvider& p) { p.caa_identities = {"*.ca.test"}; },
       "caa_identities"},
      {"a CAA name in capitals", [](CaProvider& p) { p.caa_identities = {"CA.test"}; },
       "caa_identities"},
      {"a negative limit", [](CaProvider& p) { p.rate_limits.orders.max = -1; }, "rate_limits"},
      {"a window beyond 30 days",
       [](CaProvider& p) { p.rate_limits.certificates.window = std::chrono::days{31}; },
       "rate_limits"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    ProviderFixture fx;
    CaProvider draft;
    draft.name = "Internal";
    draft.directory_url = kPrivateCa;
    c.change(draft);
    auto made = fx.providers.create(fx.owner(), fx.ctx(), draft);
    REQUIRE_FALSE(made.ok());
    CHECK(made.error().code == ErrorCode::invalid_argument);
    REQUIRE(made.error().references.size() == 1);
    CHECK(made.error().references[0] == c.field);
    CHECK(fx.providers.list(fx.owner())->empty());
  }
  // A trust bundle that is one is kept.
  ProviderFixture fx;
  CaProvider draft;
  draft.name = "Internal";
  draft.directory_url = kPrivateCa;
  draft.trust_bundle =
      testing::makeTestMaterial("ca.internal.test", "DNS:ca.internal.test").chain_pem;
  auto made = fx.providers.create(fx.owner(), fx.ctx(), draft);
  REQUIRE(made.ok());
  CHECK(fx.providers.trustBundleFor(kPrivateCa) == draft.trust_bundle);
  CHECK(fx.providers.trustBundleFor("https://other.test/dir").empty());
}

TEST_CASE("ca providers: names and directory URLs are unique, and only org admins change them") {
  ProviderFixture fx;
  const auto first = fx.custom();
  CaProvider sameName;
  sameName.name = "Internal";
  sameName.directory_url = "https://other.test/dir";
  auto dup = fx.providers.create(fx.owner(), fx.ctx(), sameName);
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().code == ErrorCode::conflict);
  CHECK(dup.error().references == std::vector<std::string>{"name"});
  CaProvider sameUrl;
  sameUrl.name = "Again";
  sameUrl.directory_url = kPrivateCa;
  dup = fx.providers.create(fx.owner(), fx.ctx(), sameUrl);
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().references == std::vector<std::string>{"directory_url"});

  for (const auto role : {OrgRole::viewer, OrgRole::operator_}) {
    const auto who = fx.orgMember(role);
    CHECK(fx.providers.create(who, fx.ctx(), sameUrl).error().code == ErrorCode::permission_denied);
    CHECK(fx.providers.update(who, fx.ctx(), first.provider.id, {}).error().code ==
          ErrorCode::permission_denied);
    CHECK(fx.providers.remove(who, fx.ctx(), first.provider.id).error().code ==
          ErrorCode::permission_denied);
  }
  sameUrl.directory_url = "https://admin.test/dir";
  CHECK(fx.providers.create(fx.orgMember(OrgRole::admin), fx.ctx(), sameUrl).ok());
  CHECK(fx.providers.list(fx.owner())->size() == 2);
}

TEST_CASE("ca providers: accounts refer to a provider, and a bare URL gets a provider of its own") {
  ProviderFixture fx;
  const auto internal = fx.custom();
  auto byId = fx.account(internal.provider.id);
  REQUIRE(byId.ok());
  CHECK(byId->directory_url == kPrivateCa);

  // A URL no provider has: a custom provider is made for it, named after its host.
  const std::string pebble = "https://127.0.0.1:14000/dir";
  auto bare = fx.account("", pebble);
  REQUIRE(bare.ok());
  REQUIRE_FALSE(bare->ca_provider_id.empty());
  auto made = fx.providers.get(fx.owner(), bare->ca_provider_id);
  REQUIRE(made.ok());
  CHECK(made->provider.name == "127.0.0.1:14000");
  CHECK(made->provider.directory_url == pebble);
  // The next account with that URL shares it; a preset's URL gets the preset's provider.
  auto again = fx.account("", pebble);
  REQUIRE(again.ok());
  CHECK(again->ca_provider_id == bare->ca_provider_id);
  auto le = fx.account("", "https://acme-v02.api.letsencrypt.org/directory");
  REQUIRE(le.ok());
  auto leProvider = fx.providers.get(fx.owner(), le->ca_provider_id);
  REQUIRE(leProvider.ok());
  CHECK(leProvider->provider.preset == "letsencrypt");
  CHECK(leProvider->provider.caa_identities == std::vector<std::string>{"letsencrypt.org"});
  CHECK(fx.providers.list(fx.owner())->size() == 3);

  // Neither, an unknown provider, plain http: refused, nothing stored.
  const auto before = fx.store.acmeAccounts().list("p1", PageRequest{1, 100})->total;
  auto neither = fx.account("", "");
  REQUIRE_FALSE(neither.ok());
  CHECK(neither.error().references == std::vector<std::string>{"ca_provider_id"});
  auto unknown = fx.account("no-such-provider");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().references == std::vector<std::string>{"ca_provider_id"});
  CHECK_FALSE(fx.account("", "http://ca.test/dir").ok());
  CHECK(fx.store.acmeAccounts().list("p1", PageRequest{1, 100})->total == before);

  // A disabled provider takes no new accounts.
  CaProviderChange off;
  off.enabled = false;
  REQUIRE(fx.providers.update(fx.owner(), fx.ctx(), internal.provider.id, off).ok());
  auto refused = fx.account(internal.provider.id);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("disabled") != std::string::npos);
  CHECK_FALSE(fx.account("", kPrivateCa).ok());
}

TEST_CASE(
    "ca providers: one in use is neither deleted nor moved, and moving an account resets it") {
  ProviderFixture fx;
  const auto internal = fx.custom();
  auto account = fx.account(internal.provider.id);
  REQUIRE(account.ok());

  auto removed = fx.providers.remove(fx.owner(), fx.ctx(), internal.provider.id);
  REQUIRE_FALSE(removed.ok());
  CHECK(removed.error().code == ErrorCode::conflict);
  REQUIRE(removed.error().references.size() == 1);
  CHECK(removed.error().references[0] == "project p1 acme_account " + account->id);
  CaProviderChange move;
  move.directory_url = "https://moved.test/dir";
  auto moved = fx.providers.update(fx.owner(), fx.ctx(), internal.provider.id, move);
  REQUIRE_FALSE(moved.ok());
  CHECK(moved.error().code == ErrorCode::conflict);
  // Other fields change freely.
  CaProviderChange rename;
  rename.name = "Internal CA";
  rename.caa_identities = std::vector<std::string>{"ca.internal.test", "pki.internal.test"};
  auto renamed = fx.providers.update(fx.owner(), fx.ctx(), internal.provider.id, rename);
  REQUIRE(renamed.ok());
  CHECK(renamed->provider.name == "Internal CA");
  CHECK(renamed->provider.caa_identities.size() == 2);

  // The account, registered there, moves to another provider: its registration is gone.
  auto stored = fx.store.acmeAccounts().get("p1", account->id);
  stored->is_registered = true;
  stored->account_url = "https://ca.internal.test/acct/1";
  stored->status = "valid";
  REQUIRE(fx.store.acmeAccounts().update(*stored).ok());
  const auto other = fx.custom("Other", "https://other.test/dir");
  auto switched = fx.config.acmeAccounts.update(
      fx.owner(), fx.ctx(), "p1", account->id,
      [&](AcmeAccount& a) {
        a.ca_provider_id = other.provider.id;
        a.directory_url.clear();
      },
      std::nullopt);
  REQUIRE(switched.ok());
  CHECK(switched->directory_url == "https://other.test/dir");
  CHECK_FALSE(switched->is_registered);
  CHECK(switched->account_url.empty());

  // A change that repeats its provider (as a form sends every field back) is no change of CA.
  auto same = fx.config.acmeAccounts.update(
      fx.owner(), fx.ctx(), "p1", account->id,
      [&](AcmeAccount& a) {
        a.ca_provider_id = other.provider.id;
        a.directory_url.clear();
        a.email = "ops@example.test";
      },
      std::nullopt);
  REQUIRE_MESSAGE(same.ok(), (same.ok() ? "" : same.error().message));
  CHECK(same->directory_url == "https://other.test/dir");

  // Now unused: it can move, and be deleted.
  CHECK(fx.providers.update(fx.owner(), fx.ctx(), internal.provider.id, move).ok());
  CHECK(fx.providers.remove(fx.owner(), fx.ctx(), internal.provider.id).ok());
  CHECK(fx.providers.get(fx.owner(), internal.provider.id).error().code == ErrorCode::not_found);
  CHECK(fx.audited("ca_provider.delete").size() == 1);
}

TEST_CASE("ca providers: accounts made before providers are adopted once, by directory URL") {
  ProviderFixture fx;
  fx.project("p2");
  // A provider that exists already, disabled since: its old accounts are still linked to it.
  auto disabled = fx.custom("Disabled", "https://disabled.test/dir");
  CaProviderChange off;
  off.enabled = false;
  REQUIRE(fx.providers.update(fx.owner(), fx.ctx(), disabled.provider.id, off).ok());
  const std::string staging = "https://acme-staging-v02.api.letsencrypt.org/directory";
  Id broken;
  for (const auto& [project, url] :
       {std::pair{"p1", kPrivateCa}, std::pair{"p2", kPrivateCa}, std::pair{"p2", staging},
        std::pair{"p1", std::string("https://disabled.test/dir")},
        std::pair{"p1", std::string("http://plain.test/dir")}}) {
    AcmeAccount old;
    old.id = fx.ids.next();
    old.project_id = project;
    old.name = "old " + old.id;
    old.directory_url = url;
    if (url.starts_with("http://")) broken = old.id;
    REQUIRE(fx.store.acmeAccounts().create(old).ok());
  }
  auto adopted = fx.providers.adoptAccounts();
  REQUIRE(adopted.ok());
  CHECK(adopted->adopted == 4);
  // The one whose URL no provider may have is named, and left as it was.
  REQUIRE(adopted->skipped.size() == 1);
  CHECK(adopted->skipped[0].find(broken) != std::string::npos);
  CHECK(fx.store.acmeAccounts().get("p1", broken)->ca_provider_id.empty());
  const auto listed = fx.providers.list(fx.owner());
  REQUIRE(listed->size() == 3);  // the disabled one, the private CA's, staging's
  for (const auto* project : {"p1", "p2"}) {
    const auto page = fx.store.acmeAccounts().list(project, PageRequest{1, 100});
    REQUIRE(page.ok());
    for (const auto& a : page->items) {
      if (a.id == broken) continue;
      auto provider = fx.providers.get(fx.owner(), a.ca_provider_id);
      REQUIRE(provider.ok());
      CHECK(provider->provider.directory_url == a.directory_url);
    }
  }
  auto again = fx.providers.adoptAccounts();
  REQUIRE(again.ok());
  CHECK(again->adopted == 0);
  CHECK(fx.providers.list(fx.owner())->size() == 3);
}

TEST_CASE("ca providers: presets are the CAs the issue names, each with its directory") {
  ProviderFixture fx;
  auto presets = fx.providers.presets(fx.orgMember(OrgRole::viewer));
  REQUIRE(presets.ok());
  std::vector<std::string> keys;
  for (const auto& p : *presets) {
    keys.emplace_back(p.key);
    CHECK(std::string(p.directory_url).starts_with("https://"));
    CHECK(validateCaProvider(providerFromPreset(p)).ok());
  }
  CHECK(keys == std::vector<std::string>{"letsencrypt", "letsencrypt-staging", "zerossl", "google",
                                         "buypass", "sslcom"});
  CHECK(findCaPreset("google")->eab_required);
  CHECK_FALSE(findCaPreset("letsencrypt")->eab_required);
}

TEST_CASE("ca providers: a certificate's issuer preference and profile are checked at create") {
  ProviderFixture fx;
  fx.servedZone("p1", "example.com");
  CertificateService certificates{
      {fx.store.certificates(), fx.store.jobs(), fx.store.distributions(), fx.store.license(),
       fx.ids, fx.clock, fx.secrets, fx.store.acmeAccounts(), fx.store.zones(), nullptr, nullptr,
       nullptr, false, &fx.document},
      fx.work,
      fx.access,
      fx.audit};
  License unlimited;  // more than the free plan's one certificate
  unlimited.plan_name = "enterprise";
  unlimited.expires_at = fx.clock.now() + std::chrono::days{365};
  REQUIRE(fx.store.license().put(unlimited).ok());
  const auto internal = fx.custom();
  const auto first = *fx.account(internal.provider.id);
  const auto second = *fx.account("", "https://127.0.0.1:14000/dir");
  const auto request = [&](std::vector<Id> ids, std::string profile) {
    CertificateRequest r;
    r.common_name = "www.example.com";
    r.acme_account_ids = std::move(ids);
    r.profile = std::move(profile);
    return certificates.create(fx.owner(), fx.ctx(), "p1", r);
  };
  struct Case {
    const char* what;
    std::vector<Id> ids;
    std::string profile;
    const char* field;  // nullptr: accepted
  };
  const Case cases[] = {
      {"two accounts and a profile the first's CA offers",
       {first.id, second.id},
       "shortlived",
       nullptr},
      {"no profile", {second.id, first.id}, "", nullptr},
      {"a profile the first's CA does not offer", {first.id}, "classic", "profile"},
      {"a profile only the second's CA could know", {second.id, first.id}, "tlsserver", "profile"},
      {"a profile without accounts", {}, "tlsserver", "profile"},
      {"an account of no one", {first.id, "nope"}, "", nullptr},
      {"the same account twice", {first.id, first.id}, "", "acme_account_ids"},
      {"six accounts", {first.id, second.id, "a", "b", "c", "d"}, "", "acme_account_ids"},
      {"a profile name with a space", {first.id}, "short lived", "profile"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    auto made = request(c.ids, c.profile);
    if (c.field == nullptr && std::string(c.what) != "an account of no one") {
      REQUIRE_MESSAGE(made.ok(), (made.ok() ? "" : made.error().message));
      CHECK(made->certificate.acme_account_ids == c.ids);
      CHECK(made->certificate.acme_account_id == c.ids.front());
      CHECK(made->certificate.profile == c.profile);
    } else {
      REQUIRE_FALSE(made.ok());
      CHECK(made.error().code == ErrorCode::invalid_argument);
      if (c.field != nullptr) {
        REQUIRE(made.error().references.size() == 1);
        CHECK(made.error().references[0] == c.field);
      } else {
        CHECK(made.error().message.find("acme_account_ids") != std::string::npos);
      }
    }
  }
}
