// Where a DNS-01 challenge goes: ChallengeRouter's rules as a table (no CNAME, one and several
// hops, loops, too many hops, a delegation outside the project's zones, resolvers that do not
// answer), ZoneRoutedDns writing the record at the delegated name through the zone that covers
// it, and certificate create and challenge-plan accepting names served only by a delegation.
#include <doctest/doctest.h>

#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/runtime/thread_background.hpp>
#include <certsteward/services/challenge_routes.hpp>
#include <certsteward/services/zone_routed_dns.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

struct RouteFixture : testing::ServiceFixture {
  Id exampleZone;
  Id delegatedZone;
  RouteFixture() {
    project("p1");
    exampleZone = servedZone("p1", "example.com");
    delegatedZone = servedZone("p1", "delegated.net");
  }
  ChallengeRouter router() { return ChallengeRouter({store.zones(), &lookup}); }
};

struct RouteCase {
  const char* what;
  std::vector<std::pair<std::string, std::string>> cnames;
  bool resolversDown;
  const char* name;
  // Expected: the record's name and zone, the hops, and a note; or an error code and words.
  const char* record;
  const char* zone;
  std::vector<std::string> hops;
  bool noted;
  std::optional<ErrorCode> error;  // none: routed
  const char* says;
};

}  // namespace

TEST_CASE("challenge routes: the rules, one row each") {
  const std::vector<RouteCase> cases = {
      {"no CNAME: the name's own zone",
       {},
       false,
       "www.example.com",
       "_acme-challenge.www.example.com",
       "example.com",
       {},
       false,
       std::nullopt,
       ""},
      {"a wildcard shares its apex's challenge name",
       {},
       false,
       "*.Example.COM.",
       "_acme-challenge.example.com",
       "example.com",
       {},
       false,
       std::nullopt,
       ""},
      {"one hop into another zone of the project",
       {{"_acme-challenge.www.example.com", "www.delegated.net"}},
       false,
       "www.example.com",
       "www.delegated.net",
       "delegated.net",
       {"www.delegated.net"},
       false,
       std::nullopt,
       ""},
      {"a name whose own zone the project does not manage, delegated into one it does",
       {{"_acme-challenge.shop.elsewhere.org", "Shop.Delegated.NET."}},
       false,
       "shop.elsewhere.org",
       "shop.delegated.net",
       "delegated.net",
       {"shop.delegated.net"},
       false,
       std::nullopt,
       ""},
      {"two hops",
       {{"_acme-challenge.a.example.com", "hop.example.com"},
        {"hop.example.com", "a.delegated.net"}},
       false,
       "a.example.com",
       "a.delegated.net",
       "delegated.net",
       {"hop.example.com", "a.delegated.net"},
       false,
       std::nullopt,
       ""},
      {"a loop is refused, naming the chain",
       {{"_acme-challenge.l.example.com", "l1.example.com"},
        {"l1.example.com", "_acme-challenge.l.example.com"}},
       false,
       "l.example.com",
       "",
       "",
       {},
       false,
       ErrorCode::failed_precondition,
       "form a loop (_acme-challenge.l.example.com -> l1.example.com -> "
       "_acme-challenge.l.example.com)"},
      {"a loop further down the chain is refused",
       {{"_acme-challenge.m.example.com", "m1.example.com"},
        {"m1.example.com", "m2.example.com"},
        {"m2.example.com", "m1.example.com"}},
       false,
       "m.example.com",
       "",
       "",
       {},
       false,
       ErrorCode::failed_precondition,
       "form a loop"},
      {"nine hops are too many",
       {{"_acme-challenge.n.example.com", "n1.example.com"},
        {"n1.example.com", "n2.example.com"},
        {"n2.example.com", "n3.example.com"},
        {"n3.example.com", "n4.example.com"},
        {"n4.example.com", "n5.example.com"},
        {"n5.example.com", "n6.example.com"},
        {"n6.example.com", "n7.example.com"},
        {"n7.example.com", "n8.example.com"},
        {"n8.example.com", "n9.example.com"}},
       false,
       "n.example.com",
       "",
       "",
       {},
       false,
       ErrorCode::failed_precondition,
       "more than 8 CNAMEs lead from _acme-challenge.n.example.com"},
      {"eight hops are followed",
       {{"_acme-challenge.e.example.com", "e1.example.com"},
        {"e1.example.com", "e2.example.com"},
        {"e2.example.com", "e3.example.com"},
        {"e3.example.com", "e4.example.com"},
        {"e4.example.com", "e5.example.com"},
        {"e5.example.com", "e6.example.com"},
        {"e6.example.com", "e7.example.com"},
        {"e7.example.com", "e.delegated.net"}},
       false,
       "e.example.com",
       "e.delegated.net",
       "delegated.net",
       {"e1.example.com", "e2.example.com", "e3.example.com", "e4.example.com", "e5.example.com",
        "e6.example.com", "e7.example.com", "e.delegated.net"},
       false,
       std::nullopt,
       ""},
      {"delegated to a name no zone of the project covers",
       {{"_acme-challenge.x.example.com", "x.acme.other.io"}},
       false,
       "x.example.com",
       "",
       "",
       {},
       false,
       ErrorCode::failed_precondition,
       "_acme-challenge.x.example.com is delegated to x.acme.other.io "
       "(_acme-challenge.x.example.com -> x.acme.other.io), and no zone of this project covers "
       "x.acme.other.io: add that zone"},
      {"no zone and no delegation",
       {},
       false,
       "www.nowhere.org",
       "",
       "",
       {},
       false,
       ErrorCode::failed_precondition,
       "no zone of this project covers _acme-challenge.www.nowhere.org: add its zone, or "
       "delegate it with a CNAME to a name in one"},
      {"resolvers down: a name its own zone covers goes there, noted",
       {},
       true,
       "www.example.com",
       "_acme-challenge.www.example.com",
       "example.com",
       {},
       true,
       std::nullopt,
       ""},
      {"resolvers down: a name no zone covers cannot be served",
       {},
       true,
       "www.nowhere.org",
       "",
       "",
       {},
       false,
       ErrorCode::unavailable,
       "cannot be checked: no resolver answered"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    RouteFixture fx;
    for (const auto& [from, to] : c.cnames)
      fx.lookup.alias(from, to);
    fx.lookup.failing(c.resolversDown);
    auto route = fx.router().routeName("p1", c.name);
    if (!c.error) {
      REQUIRE_MESSAGE(route.ok(), (route.ok() ? "" : route.error().message));
      CHECK(route->record_name == c.record);
      CHECK(route->zone.domain == c.zone);
      CHECK(route->cnames == c.hops);
      CHECK(route->note.empty() == !c.noted);
      CHECK(route->challenge_name.starts_with("_acme-challenge."));
    } else {
      REQUIRE_FALSE(route.ok());
      CHECK(route.error().code == *c.error);
      CHECK_MESSAGE(route.error().message.find(c.says) != std::string::npos, route.error().message);
    }
  }
}

TEST_CASE("challenge routes: one name's failed lookup is that name's, not the resolvers'") {
  RouteFixture fx;
  fx.lookup.failFor("_acme-challenge.a.example.com");
  fx.lookup.alias("_acme-challenge.b.example.com", "b.delegated.net");
  auto router = fx.router();
  auto a = router.routeName("p1", "a.example.com");
  REQUIRE(a.ok());
  CHECK(a->record_name == "_acme-challenge.a.example.com");  // its own zone, noted
  CHECK_FALSE(a->note.empty());
  auto b = router.routeName("p1", "b.example.com");  // still asked, and followed
  REQUIRE(b.ok());
  CHECK(b->record_name == "b.delegated.net");
  CHECK(b->note.empty());

  // No resolver answering at all: asked once, then the rest of the request is told at once.
  RouteFixture down;
  down.lookup.failing(true);
  auto blind = down.router();
  CHECK(blind.routeName("p1", "c.example.com").ok());
  CHECK(blind.routeName("p1", "d.example.com").ok());
  CHECK(down.lookup.lookups() == 1);
}

TEST_CASE("challenge routes: without a lookup nothing is followed and nothing is asked") {
  RouteFixture fx;
  fx.lookup.alias("_acme-challenge.www.example.com", "www.delegated.net");
  ChallengeRouter blind({fx.store.zones(), nullptr});
  auto route = blind.routeName("p1", "www.example.com");
  REQUIRE(route.ok());
  CHECK(route->record_name == "_acme-challenge.www.example.com");
  CHECK(fx.lookup.lookups() == 0);
}

TEST_CASE("challenge routes: the record is written at the delegated name, in the zone there") {
  RouteFixture fx;
  fx.lookup.alias("_acme-challenge.www.example.com", "www.delegated.net");
  testing::InMemoryDns dns;
  adapters::runtime::ThreadBackground background;
  StopSignal stop;
  ZoneRoutedDns routed({fx.store.zones(), fx.store.dnsCredentials(), dns, fx.secrets, fx.clock,
                        background, &fx.lookup},
                       "p1", stop);
  const ports::TxtRecord record{"", "_acme-challenge.www.example.com.", "token-value", 60};
  REQUIRE(routed.present(record).ok());
  CHECK(dns.has("www.delegated.net.", "token-value"));
  CHECK_FALSE(dns.has("_acme-challenge.www.example.com.", "token-value"));
  REQUIRE(routed.waitVisible(record, std::chrono::seconds{1}).ok());
  REQUIRE(routed.cleanup(record).ok());
  CHECK(dns.size() == 0);
  // Two lookups (the CNAME, and that its target has none) serve the attempt's three calls.
  CHECK(fx.lookup.lookups() == 2);
  REQUIRE(routed.routes().size() == 1);
  CHECK(routed.routes().begin()->second.zone.domain == "delegated.net");

  // A removal that fails is remembered at the delegated name, so the clean-up job goes there.
  ZoneRoutedDns again({fx.store.zones(), fx.store.dnsCredentials(), dns, fx.secrets, fx.clock,
                       background, &fx.lookup},
                      "p1", stop);
  REQUIRE(again.present(record).ok());
  dns.setReachable(false);
  CHECK_FALSE(again.cleanup(record).ok());
  REQUIRE(again.failedCleanups().size() == 1);
  CHECK(again.failedCleanups()[0].first.name == "www.delegated.net.");
  CHECK(again.failedCleanups()[0].first.zone == "delegated.net.");
}

TEST_CASE("certificates: a name served only through a delegation is accepted, and planned") {
  RouteFixture fx;
  fx.lookup.alias("_acme-challenge.shop.elsewhere.org", "shop.delegated.net");
  CertificateRequest request;
  request.common_name = "www.example.com";
  request.sans = {"shop.elsewhere.org", "*.shop.elsewhere.org"};
  auto created = fx.certificates.create(fx.owner(), fx.ctx(), "p1", request);
  REQUIRE_MESSAGE(created.ok(), (created.ok() ? "" : created.error().message));
  // Names covered directly are not looked up at create; the delegated one is asked once (the
  // CNAME, and that its target has none), its wildcard sharing the answers.
  CHECK(fx.lookup.lookups() == 2);

  auto plan = fx.certificates.challengePlan(fx.owner(), "p1", created->certificate.id);
  REQUIRE(plan.ok());
  REQUIRE(plan->size() == 3);
  CHECK((*plan)[0].name == "www.example.com");
  REQUIRE((*plan)[0].route);
  CHECK((*plan)[0].route->zone.id == fx.exampleZone);
  CHECK((*plan)[1].name == "shop.elsewhere.org");
  REQUIRE((*plan)[1].route);
  CHECK((*plan)[1].route->zone.id == fx.delegatedZone);
  CHECK((*plan)[1].route->cnames == std::vector<std::string>{"shop.delegated.net"});
  CHECK((*plan)[2].route->record_name == "shop.delegated.net");

  // The delegation taken away: the plan says why the name is not served, the others stay.
  RouteFixture other;
  other.lookup.alias("_acme-challenge.shop.elsewhere.org", "shop.delegated.net");
  auto second = other.certificates.create(other.owner(), other.ctx(), "p1", request);
  REQUIRE(second.ok());
  other.lookup.alias("_acme-challenge.shop.elsewhere.org", "shop.unmanaged.io");
  auto changed = other.certificates.challengePlan(other.owner(), "p1", second->certificate.id);
  REQUIRE(changed.ok());
  CHECK((*changed)[0].route);
  CHECK_FALSE((*changed)[1].route);
  CHECK((*changed)[1].problem.find("shop.unmanaged.io") != std::string::npos);
}

TEST_CASE("certificates: a name with no zone and no delegation is refused, nothing written") {
  RouteFixture fx;
  CertificateRequest request;
  request.common_name = "www.nowhere.org";
  auto refused = fx.certificates.create(fx.owner(), fx.ctx(), "p1", request);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::invalid_argument);
  CHECK(refused.error().reason == "NAME_NOT_SERVED");
  CHECK(refused.error().references == std::vector<std::string>{"sans"});
  CHECK(refused.error().message.find("www.nowhere.org") != std::string::npos);
  CHECK(*fx.store.certificates().countAll() == 0);

  // Resolvers that do not answer: refused, saying the delegation could not be checked.
  fx.lookup.failing(true);
  auto blind = fx.certificates.create(fx.owner(), fx.ctx(), "p1", request);
  REQUIRE_FALSE(blind.ok());
  CHECK(blind.error().reason == "NAME_NOT_SERVED");
  CHECK(blind.error().message.find("cannot be checked") != std::string::npos);
  CHECK(*fx.store.certificates().countAll() == 0);
}

TEST_CASE("zone routing: a credential's propagation_timeout replaces the caller's wait") {
  RouteFixture fx;
  auto credential = *fx.store.dnsCredentials().get(
      "p1", fx.store.zones().findForName("p1", "example.com")->value().dns_credential_id);
  credential.settings["propagation_timeout"] = "1";
  REQUIRE(fx.store.dnsCredentials().update(credential).ok());
  testing::InMemoryDns dns;
  dns.visibleFrom(std::chrono::steady_clock::now() + std::chrono::hours{1});
  adapters::crypto::SystemClock clock;  // the wait runs on real time
  adapters::runtime::ThreadBackground background;
  StopSignal stop;
  ZoneRoutedDns routed(
      {fx.store.zones(), fx.store.dnsCredentials(), dns, fx.secrets, clock, background, &fx.lookup},
      "p1", stop);
  const ports::TxtRecord record{"", "_acme-challenge.www.example.com.", "token-value", 60};
  REQUIRE(routed.present(record).ok());
  const auto started = std::chrono::steady_clock::now();
  auto waited = routed.waitVisible(record, std::chrono::seconds{30});
  const auto took = std::chrono::steady_clock::now() - started;
  REQUIRE_FALSE(waited.ok());
  CHECK(waited.error().code == ErrorCode::unavailable);
  CHECK(took >= std::chrono::milliseconds{900});
  CHECK(took < std::chrono::seconds{10});

  // Without the setting, the caller's wait holds (here: the record becomes visible in time).
  credential.settings.erase("propagation_timeout");
  REQUIRE(fx.store.dnsCredentials().update(credential).ok());
  dns.visibleFrom(std::chrono::steady_clock::now() + std::chrono::milliseconds{1500});
  ZoneRoutedDns fresh(
      {fx.store.zones(), fx.store.dnsCredentials(), dns, fx.secrets, clock, background, &fx.lookup},
      "p1", stop);
  CHECK(fresh.waitVisible(record, std::chrono::seconds{30}).ok());
}
