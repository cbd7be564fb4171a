// ConfigurationServices in process: each resource's field rules (malformed input refused with
// nothing stored), the references between resources, deletes blocked while something refers to
// a resource, roles, sealed secrets and audit entries — the rules an embedding team gets.
#include <doctest/doctest.h>

#include <functional>

#include <certsteward/services/configuration_services.hpp>
#include <certsteward/services/dns_account_registration.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

struct ConfigFixture : testing::ServiceFixture {
  ConfigurationServices config{
      {store.acmeAccounts(), store.dnsCredentials(), store.zones(), store.credentials(),
       store.moduleConfigs(), store.notificationChannels(), store.notificationRules(),
       store.distributions(), secrets, ids, clock},
      work,
      access,
      audit};
  ConfigFixture() { project("p1"); }

  DnsCredential dnsCredential(bool active = true) {
    DnsCredential d;
    d.name = "bind9";
    d.provider = "rfc2136";
    d.settings = {{"server", "ns1.example.test"}, {"key_name", "certsteward"}};
    d.active = active;
    auto created = config.dnsCredentials.create(owner(), ctx(), "p1", d, "dHNpZy1zZWNyZXQ=");
    REQUIRE(created.ok());
    return *created;
  }
};

}  // namespace

TEST_CASE("configuration: malformed fields are refused before anything is stored") {
  ConfigFixture fx;
  const auto who = fx.owner();
  const struct {
    const char* name;
    std::function<Status()> create;
    std::function<std::int64_t()> stored;
    const char* message;
  } rows[] = {
      {"an ACME directory over plain http",
       [&] {
         AcmeAccount a;
         a.name = "le";
         a.directory_url = "http://acme.example/dir";
         return Status(fx.config.acmeAccounts.create(who, fx.ctx(), "p1", a, std::nullopt).error());
       },
       [&] {
         return fx.store.acmeAccounts().list("p1", {1, 10})->total;
       },
       "https://"},
      {"an unknown DNS provider",
       [&] {
         DnsCredential d;
         d.name = "x";
         d.provider = "route53-but-not-built";
         return Status(fx.config.dnsCredentials.create(who, fx.ctx(), "p1", d, "s").error());
       },
       [&] {
         return fx.store.dnsCredentials().list("p1", {1, 10})->total;
       },
       "unknown provider"},
      {"an unknown credential kind",
       [&] {
         Credential c;
         c.name = "k";
         c.kind = "magic";
         return Status(fx.config.credentials.create(who, fx.ctx(), "p1", c, "s").error());
       },
       [&] {
         return fx.store.credentials().list("p1", {1, 10})->total;
       },
       "unknown kind"},
      {"an unknown channel kind",
       [&] {
         NotificationChannel ch;
         ch.name = "c";
         ch.kind = "pager";
         return Status(fx.config.channels.create(who, fx.ctx(), "p1", ch, std::nullopt).error());
       },
       [&] {
         return fx.store.notificationChannels().list("p1", {1, 10})->total;
       },
       "unknown kind"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    const auto refused = row.create();
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::invalid_argument);
    CHECK(refused.error().reason == kMalformed);
    CHECK(refused.error().message.find(row.message) != std::string::npos);
    CHECK(row.stored() == 0);
  }
  CHECK(fx.audited("acme_account.create").empty());
}

TEST_CASE("configuration: an update cannot bring in what a create refuses") {
  ConfigFixture fx;
  AcmeAccount a;
  a.name = "le";
  a.directory_url = "https://acme.example/dir";
  auto created = fx.config.acmeAccounts.create(fx.owner(), fx.ctx(), "p1", a, std::nullopt);
  REQUIRE(created.ok());
  auto changed = fx.config.acmeAccounts.update(
      fx.owner(), fx.ctx(), "p1", created->id,
      [](AcmeAccount& x) { x.directory_url = "http://acme.example/dir"; }, std::nullopt);
  REQUIRE_FALSE(changed.ok());
  CHECK(changed.error().reason == kMalformed);
  CHECK(fx.store.acmeAccounts().get("p1", created->id)->directory_url ==
        "https://acme.example/dir");
}

TEST_CASE("configuration: an empty secret removes the stored one, never counts as one") {
  ConfigFixture fx;
  // A kind that needs its secret: "" is refused, on create and on update, and nothing changes.
  Credential c;
  c.name = "deploy";
  c.kind = "token";
  auto empty = fx.config.credentials.create(fx.owner(), fx.ctx(), "p1", c, std::string());
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().references.at(0) == "secret");
  auto created = fx.config.credentials.create(fx.owner(), fx.ctx(), "p1", c, "a token");
  REQUIRE(created.ok());
  auto cleared = fx.config.credentials.update(
      fx.owner(), fx.ctx(), "p1", created->id, [](Credential&) {}, std::string());
  REQUIRE_FALSE(cleared.ok());
  CHECK_FALSE(fx.store.credentials().get("p1", created->id)->secret_sealed.empty());
  // A kind whose secret is optional: "" removes it.
  NotificationChannel ch;
  ch.name = "hook";
  ch.kind = "webhook";
  ch.settings = {{"url", "https://hooks.example.com/x"}};
  auto channel = fx.config.channels.create(fx.owner(), fx.ctx(), "p1", ch, "signing key");
  REQUIRE(channel.ok());
  CHECK_FALSE(channel->secret_sealed.empty());
  auto removed = fx.config.channels.update(
      fx.owner(), fx.ctx(), "p1", channel->id, [](NotificationChannel&) {}, std::string());
  REQUIRE(removed.ok());
  CHECK(removed->secret_sealed.empty());
}

TEST_CASE("configuration: a zone needs an active DNS credential of its project") {
  ConfigFixture fx;
  const auto inactive = fx.dnsCredential(false);
  Zone z;
  z.domain = "example.com";
  z.dns_credential_id = inactive.id;
  auto refused = fx.config.zones.create(fx.owner(), fx.ctx(), "p1", z, std::nullopt);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::invalid_argument);
  CHECK(refused.error().reason.empty());  // well-formed, against a rule: 422
  z.dns_credential_id = fx.dnsCredential().id;
  z.domain = "Not A Domain";
  CHECK_FALSE(fx.config.zones.create(fx.owner(), fx.ctx(), "p1", z, std::nullopt).ok());
  z.domain = "example.com";
  CHECK(fx.config.zones.create(fx.owner(), fx.ctx(), "p1", z, std::nullopt).ok());
}

TEST_CASE("configuration: a DNS credential in use by a zone cannot be deleted") {
  ConfigFixture fx;
  const auto credential = fx.dnsCredential();
  Zone z;
  z.domain = "example.com";
  z.dns_credential_id = credential.id;
  auto zone = fx.config.zones.create(fx.owner(), fx.ctx(), "p1", z, std::nullopt);
  REQUIRE(zone.ok());
  auto blocked = fx.config.dnsCredentials.remove(fx.owner(), fx.ctx(), "p1", credential.id);
  REQUIRE_FALSE(blocked.ok());
  CHECK(blocked.error().code == ErrorCode::conflict);
  CHECK(blocked.error().reason == "DEPENDENCY_CONFLICT");
  REQUIRE(blocked.error().references.size() == 1);
  CHECK(blocked.error().references[0] == "zone " + zone->id);
  CHECK(fx.store.dnsCredentials().get("p1", credential.id).ok());
  REQUIRE(fx.config.zones.remove(fx.owner(), fx.ctx(), "p1", zone->id).ok());
  CHECK(fx.config.dnsCredentials.remove(fx.owner(), fx.ctx(), "p1", credential.id).ok());
  CHECK(fx.audited("dns_credential.delete").size() == 1);
}

TEST_CASE(
    "configuration: a credential used by a module cannot be deleted, nor a module with "
    "distributions") {
  ConfigFixture fx;
  Credential c;
  c.name = "deploy";
  c.kind = "ssh_key";
  auto credential = fx.config.credentials.create(fx.owner(), fx.ctx(), "p1", c, "PRIVATE-KEY");
  REQUIRE(credential.ok());
  CHECK(credential->secret_sealed.find("PRIVATE-KEY") == std::string::npos);
  ModuleConfig m;
  m.name = "web";
  m.module = "ssh";
  m.targets = {DistributionTarget{"web-1",
                                  {{"host", "127.0.0.1"},
                                   {"host_key_sha256", "SHA256:" + std::string(43, 'A')},
                                   {"cert_path", "/etc/ssl/web.pem"},
                                   {"key_path", "/etc/ssl/web.key"}},
                                  credential->id}};
  auto module = fx.config.modules.create(fx.owner(), fx.ctx(), "p1", m, std::nullopt);
  REQUIRE_MESSAGE(module.ok(), module.error().message);
  auto blocked = fx.config.credentials.remove(fx.owner(), fx.ctx(), "p1", credential->id);
  REQUIRE_FALSE(blocked.ok());
  CHECK(blocked.error().references == std::vector<std::string>{"module " + module->id});

  Distribution d;
  d.id = fx.ids.next();
  d.project_id = "p1";
  d.certificate_id = "0123456789abcdef01234567";
  d.module_config_id = module->id;
  REQUIRE(fx.store.distributions().create(d).ok());
  auto moduleBlocked = fx.config.modules.remove(fx.owner(), fx.ctx(), "p1", module->id);
  REQUIRE_FALSE(moduleBlocked.ok());
  CHECK(moduleBlocked.error().references == std::vector<std::string>{"distribution " + d.id});
}

TEST_CASE("configuration: reading takes a project viewer, changing a project admin") {
  ConfigFixture fx;
  fx.dnsCredential();
  const auto viewer = fx.member("p1", ProjectRole::viewer);
  const auto admin = fx.member("p1", ProjectRole::admin);
  CHECK(fx.config.dnsCredentials.list(viewer, "p1", {1, 10})->total == 1);
  DnsCredential d;
  d.name = "second";
  d.provider = "rfc2136";
  d.settings = {{"server", "ns1.example.test"}, {"key_name", "certsteward"}};
  auto refused = fx.config.dnsCredentials.create(viewer, fx.ctx(), "p1", d, "c2VjcmV0");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::permission_denied);
  CHECK(fx.config.dnsCredentials.create(admin, fx.ctx(), "p1", d, "c2VjcmV0").ok());
  fx.project("p2");
  const auto outsider = fx.member("p2", ProjectRole::admin);
  CHECK(fx.config.dnsCredentials.list(outsider, "p1", {1, 10}).error().code ==
        ErrorCode::not_found);
}

TEST_CASE("configuration: an acme-dns account registered becomes a DNS credential and its zone") {
  ConfigFixture fx;
  testing::InMemoryDns providers;
  DnsAccountRegistration registration(providers, fx.config, fx.access);
  DnsCredential draft;
  draft.name = "acme-dns";
  draft.provider = "acmedns";
  draft.settings = {{"api_url", "https://auth.example.net"}};

  // Below project admin: refused before anything is sent.
  const auto viewer = fx.member("p1", ProjectRole::viewer);
  auto refused = registration.registerAccount(viewer, fx.ctx(), "p1", draft);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::permission_denied);
  CHECK(providers.registrations() == 0);

  auto made = registration.registerAccount(fx.owner(), fx.ctx(), "p1", draft);
  REQUIRE_MESSAGE(made.ok(), (made.ok() ? "" : made.error().message));
  CHECK(providers.registrations() == 1);
  CHECK(made->credential.provider == "acmedns");
  CHECK(made->credential.settings.at("subdomain") == "8e5700ea-a4bf-41c7-8a77-000000000001");
  CHECK(made->zone.domain == "8e5700ea-a4bf-41c7-8a77-000000000001.auth.example.net");
  CHECK(made->zone.dns_credential_id == made->credential.id);
  // The key is sealed, never kept in the settings.
  CHECK(*fx.secrets.open(made->credential.secret_sealed) == "acme-dns-key-000000000001");
  for (const auto& [key, value] : made->credential.settings)
    CHECK(value.find("acme-dns-key") == std::string::npos);
  CHECK(fx.audited("dns_credential.create").size() == 1);
  CHECK(fx.audited("zone.create").size() == 1);

  // A name whose challenge is delegated to the account is served through it.
  fx.lookup.alias("_acme-challenge.www.example.org", made->zone.domain);
  CertificateRequest request;
  request.common_name = "www.example.org";
  auto cert = fx.certificates.create(fx.owner(), fx.ctx(), "p1", request);
  REQUIRE_MESSAGE(cert.ok(), (cert.ok() ? "" : cert.error().message));

  // The server down: nothing is stored.
  providers.setReachable(false);
  draft.name = "second";
  auto down = registration.registerAccount(fx.owner(), fx.ctx(), "p1", draft);
  REQUIRE_FALSE(down.ok());
  CHECK(down.error().code == ErrorCode::unavailable);
  CHECK(fx.store.dnsCredentials().list("p1", {1, 10})->total == 1);

  // Another provider, or a bad name: refused before anything is sent.
  providers.setReachable(true);
  draft.provider = "rfc2136";
  CHECK(registration.registerAccount(fx.owner(), fx.ctx(), "p1", draft).error().code ==
        ErrorCode::invalid_argument);
  draft.provider = "acmedns";
  draft.name = " padded";
  CHECK(registration.registerAccount(fx.owner(), fx.ctx(), "p1", draft).error().code ==
        ErrorCode::invalid_argument);
  CHECK(providers.registrations() == 2);  // the down server's attempt only
}

TEST_CASE("configuration: a DNS credential's secret is not sent to a new address without it") {
  ConfigFixture fx;
  DnsCredential d;
  d.name = "cloudflare";
  d.provider = "cloudflare";
  auto created = fx.config.dnsCredentials.create(fx.owner(), fx.ctx(), "p1", d, "cf-token-1");
  REQUIRE_MESSAGE(created.ok(), (created.ok() ? "" : created.error().message));
  const auto aim = [&](const std::string& url, const std::optional<std::string>& secret) {
    return fx.config.dnsCredentials.update(
        fx.owner(), fx.ctx(), "p1", created->id,
        [&](DnsCredential& c) { c.settings["api_url"] = url; }, secret);
  };
  // Moving the API address without the secret: refused, naming the setting; nothing changes.
  auto refused = aim("https://collector.example.net/client/v4", std::nullopt);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::invalid_argument);
  CHECK(refused.error().references == std::vector<std::string>{"settings.api_url"});
  CHECK(fx.store.dnsCredentials().get("p1", created->id)->settings.count("api_url") == 0);
  // With the secret given again, it is the owner's own choice.
  CHECK(aim("https://gateway.example.net/client/v4", std::string("cf-token-2")).ok());
  // Nor to another provider, which would send it elsewhere.
  auto moved = fx.config.dnsCredentials.update(
      fx.owner(), fx.ctx(), "p1", created->id,
      [](DnsCredential& c) {
        c.provider = "digitalocean";
        c.settings.erase("api_url");
      },
      std::nullopt);
  REQUIRE_FALSE(moved.ok());
  CHECK(moved.error().references == std::vector<std::string>{"provider"});
  // Other settings change freely.
  CHECK(fx.config.dnsCredentials
            .update(
                fx.owner(), fx.ctx(), "p1", created->id,
                [](DnsCredential& c) { c.settings["check_servers"] = "ns1.example.net"; },
                std::nullopt)
            .ok());
}
