// Contract of every ProjectScopedRepository (ACME accounts, DNS credentials, zones, credentials,
// module configurations, distributions, notification channels and rules) on every adapter,
// and the queries some of them add.
//
// A suite header: include it from one test file of its own, after defining
// CERTSTEWARD_STORE_FACTORIES as the list of store factories to run it against
// (testing/contract/store_fixture.hpp says what a factory provides).
#pragma once

#ifndef CERTSTEWARD_STORE_FACTORIES
#error "define CERTSTEWARD_STORE_FACTORIES (the store factories) before including a contract suite"
#endif

#include <doctest/doctest.h>

#include <certsteward/testing/contract/store_fixture.hpp>

using namespace certsteward;
using namespace certsteward::domain;

namespace {

// Each entity: how to reach its repository, make one, change one, and compare the field changed.
struct AcmeAccounts {
  static auto& repo(ports::Store& s) { return s.acmeAccounts(); }
  static AcmeAccount make() {
    AcmeAccount a;
    a.name = "le";
    a.directory_url = "https://127.0.0.1:14000/dir";
    a.key_sealed = "v1:key";
    a.eab_kid = "kid";
    return a;
  }
  static void change(AcmeAccount& a) {
    a.status = "valid";
    a.is_registered = true;
    a.last_validated_at = Timestamp{std::chrono::days{20001}};
  }
  static bool changed(const AcmeAccount& a) {
    return a.status == "valid" && a.is_registered && a.last_validated_at &&
           a.key_sealed == "v1:key" && a.eab_kid == "kid";
  }
};
struct DnsCredentials {
  static auto& repo(ports::Store& s) { return s.dnsCredentials(); }
  static DnsCredential make() {
    DnsCredential d;
    d.name = "bind";
    d.provider = "rfc2136";
    d.settings = {{"server", "127.0.0.1:5353"}, {"key_name", "tsig"}};
    d.secret_sealed = "v1:tsig";
    return d;
  }
  static void change(DnsCredential& d) { d.active = false; }
  static bool changed(const DnsCredential& d) {
    return !d.active && d.settings.at("server") == "127.0.0.1:5353" && d.secret_sealed == "v1:tsig";
  }
};
struct Zones {
  static auto& repo(ports::Store& s) { return s.zones(); }
  static Zone make() {
    Zone z;
    z.domain = "example.com";
    z.dns_credential_id = "cred";
    return z;
  }
  static void change(Zone& z) { z.dns_credential_id = "cred2"; }
  static bool changed(const Zone& z) { return z.dns_credential_id == "cred2"; }
};
struct Credentials {
  static auto& repo(ports::Store& s) { return s.credentials(); }
  static Credential make() {
    Credential c;
    c.name = "deploy";
    c.kind = "ssh_key";
    c.username = "deploy";
    c.secret_sealed = "v1:key";
    return c;
  }
  static void change(Credential& c) { c.username = "root"; }
  static bool changed(const Credential& c) { return c.username == "root"; }
};
struct ModuleConfigs {
  static auto& repo(ports::Store& s) { return s.moduleConfigs(); }
  static ModuleConfig make() {
    ModuleConfig m;
    m.name = "web";
    m.module = "ssh";
    m.targets = {{"web1", {{"host", "127.0.0.1"}}, "cred"}, {"web2", {}, ""}};
    return m;
  }
  static void change(ModuleConfig& m) { m.auto_rollback_on_failure = true; }
  static bool changed(const ModuleConfig& m) {
    return m.auto_rollback_on_failure && m.targets.size() == 2 &&
           m.targets[0].settings.at("host") == "127.0.0.1" && m.targets[0].credential_id == "cred";
  }
};
struct Distributions {
  static auto& repo(ports::Store& s) { return s.distributions(); }
  static Distribution make() {
    Distribution d;
    d.certificate_id = "cert";
    d.module_config_id = "mod";
    return d;
  }
  static void change(Distribution& d) {
    d.last_status = "partial";
    d.last_error = "1 of 2 targets failed";
    d.last_target_results = {{"web1", "succeeded", "", "", 120},
                             {"web2", "failed", "no credential", "CREDENTIAL_MISSING", 3}};
  }
  static bool changed(const Distribution& d) {
    return d.last_status == "partial" && d.last_target_results.size() == 2 &&
           d.last_target_results[1].error_code == "CREDENTIAL_MISSING" &&
           d.last_target_results[0].duration_ms == 120;
  }
};
struct Channels {
  static auto& repo(ports::Store& s) { return s.notificationChannels(); }
  static NotificationChannel make() {
    NotificationChannel c;
    c.name = "ops";
    c.kind = "webhook";
    c.settings = {{"url", "http://127.0.0.1:9/hook"}};
    return c;
  }
  static void change(NotificationChannel& c) { c.enabled = false; }
  static bool changed(const NotificationChannel& c) { return !c.enabled; }
};
struct Rules {
  static auto& repo(ports::Store& s) { return s.notificationRules(); }
  static NotificationRule make() {
    NotificationRule r;
    r.name = "failures";
    r.events = {EventKind::job_failed};
    r.channel_ids = {"ch"};
    return r;
  }
  static void change(NotificationRule& r) { r.events.push_back(EventKind::cert_renewal_failed); }
  static bool changed(const NotificationRule& r) {
    return r.events.size() == 2 && r.events[1] == EventKind::cert_renewal_failed;
  }
};

template <class F, class E>
struct Case {
  using Factory = F;
  using Entity = E;
};

#define CERTSTEWARD_ENTITY_CASES(F)                                                     \
  Case<F, AcmeAccounts>, Case<F, DnsCredentials>, Case<F, Zones>, Case<F, Credentials>, \
      Case<F, ModuleConfigs>, Case<F, Distributions>, Case<F, Channels>, Case<F, Rules>

}  // namespace

// One entry per adapter, as in CERTSTEWARD_STORE_FACTORIES.
#if defined(CERTSTEWARD_CONTRACT_MONGO)
#define CERTSTEWARD_ALL_ENTITY_CASES CERTSTEWARD_ENTITY_CASES(testing::MongoStoreFactory)
#else
#define CERTSTEWARD_ALL_ENTITY_CASES                     \
  CERTSTEWARD_ENTITY_CASES(testing::MemoryStoreFactory), \
      CERTSTEWARD_ENTITY_CASES(testing::SqliteStoreFactory)
#endif

TEST_CASE_TEMPLATE("project-scoped repository: create, get, list, update, remove, tenancy", C,
                   CERTSTEWARD_ALL_ENTITY_CASES) {
  using E = typename C::Entity;
  testing::StoreFixture<typename C::Factory> fx;
  auto& repo = E::repo(*fx.store);
  auto a = E::make();
  a.id = fx.ids.next();
  a.project_id = "p1";
  a.created_at = fx.now();
  auto b = E::make();
  b.id = fx.ids.next();
  b.project_id = "p1";
  auto foreign = E::make();
  foreign.id = fx.ids.next();
  foreign.project_id = "p2";
  REQUIRE(repo.create(a).ok());
  REQUIRE(repo.create(b).ok());
  REQUIRE(repo.create(foreign).ok());
  CHECK(repo.create(a).error().code == ErrorCode::conflict);

  const auto got = repo.get("p1", a.id);
  REQUIRE(got.ok());
  CHECK(got->id == a.id);
  CHECK(got->created_at == a.created_at);
  CHECK(repo.get("p2", a.id).error().code == ErrorCode::not_found);

  const auto page = repo.list("p1", fx.page(1, 1));
  REQUIRE(page.ok());
  CHECK(page->total == 2);
  REQUIRE(page->items.size() == 1);
  CHECK(page->items[0].id == a.id);  // oldest first
  CHECK(repo.list("p1", fx.page(2, 1))->items[0].id == b.id);

  auto changed = *got;
  E::change(changed);
  REQUIRE(repo.update(changed).ok());
  CHECK(E::changed(*repo.get("p1", a.id)));
  auto moved = changed;
  moved.project_id = "p2";
  CHECK(repo.update(moved).error().code == ErrorCode::not_found);  // cannot cross tenants

  CHECK(repo.remove("p2", a.id).error().code == ErrorCode::not_found);
  REQUIRE(repo.remove("p1", a.id).ok());
  CHECK(repo.get("p1", a.id).error().code == ErrorCode::not_found);
  CHECK(repo.remove("p1", a.id).error().code == ErrorCode::not_found);
  CHECK(repo.get("p2", foreign.id).ok());
}

TEST_CASE_TEMPLATE("zones: the longest matching zone answers for a name", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& zones = fx.store->zones();
  for (const auto& [project, domainName] :
       std::vector<std::pair<Id, std::string>>{{"p1", "example.com"},
                                               {"p1", "dev.example.com"},
                                               {"p2", "www.example.com"},
                                               {"p1", "ample.com"}}) {
    Zone z;
    z.id = fx.ids.next();
    z.project_id = project;
    z.domain = domainName;
    REQUIRE(zones.create(z).ok());
  }
  CHECK(zones.findForName("p1", "www.example.com")->value().domain == "example.com");
  CHECK(zones.findForName("p1", "a.dev.example.com")->value().domain == "dev.example.com");
  CHECK(zones.findForName("p1", "example.com")->value().domain == "example.com");
  CHECK_FALSE(zones.findForName("p1", "example.org")->has_value());
  CHECK_FALSE(zones.findForName("p1", "xample.com")->has_value());
  CHECK(zones.findForName("p1", "sample.com")->has_value() == false);
}

TEST_CASE_TEMPLATE("distributions are listed per certificate and rules matched per event", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  for (const auto& cert : {"c1", "c1", "c2"}) {
    Distribution d;
    d.id = fx.ids.next();
    d.project_id = "p1";
    d.certificate_id = cert;
    REQUIRE(fx.store->distributions().create(d).ok());
  }
  CHECK(fx.store->distributions().listForCertificate("p1", "c1")->size() == 2);
  CHECK(fx.store->distributions().listForCertificate("p2", "c1")->empty());

  NotificationRule on;
  on.id = fx.ids.next();
  on.project_id = "p1";
  on.events = {EventKind::job_failed, EventKind::distribution_failed};
  NotificationRule off = on;
  off.id = fx.ids.next();
  off.enabled = false;
  REQUIRE(fx.store->notificationRules().create(on).ok());
  REQUIRE(fx.store->notificationRules().create(off).ok());
  const auto matched = fx.store->notificationRules().matching("p1", EventKind::distribution_failed);
  REQUIRE(matched->size() == 1);
  CHECK((*matched)[0].id == on.id);
  CHECK(fx.store->notificationRules().matching("p1", EventKind::cert_expiring_soon)->empty());
  CHECK(fx.store->notificationRules().matching("p2", EventKind::job_failed)->empty());
}
