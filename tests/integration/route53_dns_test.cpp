// The Route 53 adapter's own behaviour against the Route 53 stand-in (tests/support, written from
// AWS's API reference; it checks every SigV4 signature; no live service): the public or private
// zone of a name, a zone given by id (and a wrong one named), a set's other values kept and the
// last one deleted exactly, a change waited for until INSYNC, throttling retried, a signature
// made with a wrong clock or key refused in words. The DnsProvider contract runs against the same
// stand-in (contract/dns_provider_suite.cpp).
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include <certsteward/adapters/dns/route53_dns_provider.hpp>
#include "support/route53_standin.hpp"

using namespace certsteward;
using adapters::dns::Route53DnsProvider;
using adapters::dns::Route53Settings;
using testing::Route53StandIn;

namespace {

Route53Settings settingsFor(const Route53StandIn& server) {
  Route53Settings s;
  s.api_url = server.apiUrl();
  s.access_key_id = Route53StandIn::kAccessKeyId;
  s.secret_access_key = Route53StandIn::kSecretKey;
  s.poll_interval = std::chrono::milliseconds{50};
  return s;
}

ports::TxtRecord txt(const std::string& label, const std::string& value) {
  return {Route53StandIn::kZone, "_acme-challenge." + label + ".example.test.", value, 60};
}

std::string messageOf(const domain::Status& s) {
  return s.ok() ? std::string() : s.error().message;
}

}  // namespace

TEST_CASE("route53: two values of one name, one removed by UPSERT, the last by an exact DELETE") {
  auto& server = testing::route53StandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  Route53DnsProvider dns(settingsFor(server));
  const auto apex = txt("shared", "apex-value");
  const auto wildcard = txt("shared", "wildcard-value");
  REQUIRE_MESSAGE(dns.present(apex).ok(), messageOf(dns.present(apex)));
  REQUIRE(dns.present(wildcard).ok());
  const int before = server.requests();
  CHECK(dns.present(apex).ok());  // already there: one read of the set, nothing written
  CHECK(server.requests() == before + 1);
  // Each change is PENDING once, then INSYNC: visible only after that.
  CHECK_MESSAGE(dns.waitVisible(apex, std::chrono::seconds{3}).ok(),
                messageOf(dns.waitVisible(apex, std::chrono::seconds{3})));
  CHECK(dns.waitVisible(wildcard, std::chrono::seconds{3}).ok());

  REQUIRE_MESSAGE(dns.cleanup(apex).ok(), messageOf(dns.cleanup(apex)));  // UPSERT of the rest
  CHECK_FALSE(dns.waitVisible(apex, std::chrono::milliseconds{300}).ok());
  CHECK(dns.waitVisible(wildcard, std::chrono::seconds{3}).ok());
  // The last value: a DELETE with the set exactly as it is (the stand-in refuses any other).
  REQUIRE_MESSAGE(dns.cleanup(wildcard).ok(), messageOf(dns.cleanup(wildcard)));
  CHECK_FALSE(dns.waitVisible(wildcard, std::chrono::milliseconds{300}).ok());
  CHECK(dns.cleanup(wildcard).ok());  // gone already

  // The set's TTL is the one it was written with: the DELETE names it, not the caller's.
  auto longLived = txt("ttl", "ttl-value");
  longLived.ttl_seconds = 120;
  REQUIRE(dns.present(longLived).ok());
  auto asCleanedUp = longLived;
  asCleanedUp.ttl_seconds = 60;
  REQUIRE_MESSAGE(dns.cleanup(asCleanedUp).ok(), messageOf(dns.cleanup(asCleanedUp)));
  CHECK_FALSE(dns.waitVisible(longLived, std::chrono::milliseconds{300}).ok());
}

TEST_CASE("route53: the private or public zone of a name, a zone by id, a wrong id named") {
  auto& server = testing::route53StandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  const auto record = txt("zones", "zones-value");
  {
    auto s = settingsFor(server);
    s.private_zone = true;
    Route53DnsProvider privateDns(s);
    REQUIRE_MESSAGE(privateDns.present(record).ok(), messageOf(privateDns.present(record)));
    CHECK(privateDns.waitVisible(record, std::chrono::seconds{3}).ok());
    // The public zone of the same name does not have it.
    Route53DnsProvider publicDns(settingsFor(server));
    CHECK_FALSE(publicDns.waitVisible(record, std::chrono::milliseconds{300}).ok());
    auto byId = settingsFor(server);
    byId.hosted_zone_id = Route53StandIn::kPrivateZoneId;
    Route53DnsProvider privateById(byId);
    CHECK(privateById.waitVisible(record, std::chrono::seconds{3}).ok());
    REQUIRE(privateDns.cleanup(record).ok());
  }
  {
    auto s = settingsFor(server);
    s.hosted_zone_id = Route53StandIn::kOtherZoneId;  // other.test's id
    Route53DnsProvider dns(s);
    const auto refused = dns.present(record);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("other.test") != std::string::npos);
  }
  {
    auto s = settingsFor(server);
    s.hosted_zone_id = "ZNOSUCHZONE000";
    Route53DnsProvider dns(s);
    const auto refused = dns.present(record);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("NoSuchHostedZone") != std::string::npos);
  }
  {
    Route53DnsProvider dns(settingsFor(server));
    const auto refused = dns.present({"absent.test.", "_acme-challenge.absent.test.", "v", 60});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("no public hosted zone absent.test.") != std::string::npos);
  }
}

TEST_CASE("route53: a zone found past the first page of hosted zones, public or private") {
  Route53StandIn server(120);  // 121 private example.test. zones, 120 of them before the public
  Route53StandIn flat;         // the zones fit in one page
  REQUIRE_MESSAGE(server.available(), server.reason());
  REQUIRE_MESSAGE(flat.available(), flat.reason());
  const auto record = txt("paged", "paged-value");
  Route53DnsProvider onePage(settingsFor(flat));
  REQUIRE(onePage.present(record).ok());
  Route53DnsProvider publicDns(settingsFor(server));
  REQUIRE_MESSAGE(publicDns.present(record).ok(), messageOf(publicDns.present(record)));
  // The same add, with one more listing: the second page, where the public zone is.
  CHECK(server.requests() == flat.requests() + 1);
  CHECK(publicDns.waitVisible(record, std::chrono::seconds{3}).ok());
  auto byId = settingsFor(server);
  byId.hosted_zone_id = Route53StandIn::kZoneId;  // the same zone, named: it has the record
  Route53DnsProvider publicById(byId);
  CHECK(publicById.waitVisible(record, std::chrono::seconds{3}).ok());
  // The private choice takes the first private zone of the name, on the first page.
  auto s = settingsFor(server);
  s.private_zone = true;
  Route53DnsProvider privateDns(s);
  CHECK_FALSE(privateDns.waitVisible(record, std::chrono::milliseconds{300}).ok());
  REQUIRE(publicDns.cleanup(record).ok());
}

TEST_CASE("route53: throttling is retried, and a signature from a wrong clock or key refused") {
  auto& server = testing::route53StandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  const auto record = txt("throttled", "throttled-value");
  {
    auto s = settingsFor(server);
    s.max_retries = 1;
    Route53DnsProvider dns(s);
    server.throttle(1);  // one "Rate exceeded", then answers
    CHECK_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
    server.throttle(5);  // more than the one retry
    const auto refused = dns.cleanup(record);
    server.throttle(0);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::unavailable);
    CHECK(refused.error().message.find("throttling") != std::string::npos);
    REQUIRE(dns.cleanup(record).ok());
  }
  {
    auto s = settingsFor(server);
    s.now = [] { return std::chrono::system_clock::now() - std::chrono::hours{1}; };
    Route53DnsProvider dns(s);
    const auto refused = dns.present(record);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::permission_denied);
    CHECK(refused.error().message.find("Signature expired") != std::string::npos);
  }
  {
    auto s = settingsFor(server);
    s.access_key_id = "AKIAUNKNOWN000000001";
    Route53DnsProvider dns(s);
    const auto refused = dns.present(record);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::permission_denied);
    CHECK(refused.error().message.find("InvalidClientTokenId") != std::string::npos);
    CHECK(refused.error().message.find(Route53StandIn::kSecretKey) == std::string::npos);
  }
}

TEST_CASE("route53: settings a call could not work with are refused before any call") {
  const auto with = [](auto change) {
    Route53Settings s;
    s.access_key_id = "AKIAIOSFODNN7EXAMPLE";
    s.secret_access_key = "secret";
    change(s);
    return Route53DnsProvider::validate(s);
  };
  CHECK(with([](Route53Settings&) {}).ok());
  const struct {
    const char* what;
    domain::Status status;
    const char* names;
  } cases[] = {
      {"no access key id", with([](Route53Settings& s) { s.access_key_id.clear(); }),
       "access_key_id"},
      {"a lower-case key id",
       with([](Route53Settings& s) { s.access_key_id = "akiaiosfodnn7example"; }), "access_key_id"},
      {"no secret", with([](Route53Settings& s) { s.secret_access_key.clear(); }), "secret"},
      {"a zone id with a slash",
       with([](Route53Settings& s) { s.hosted_zone_id = "/hostedzone/Z1"; }), "hosted_zone_id"},
      {"a region with a slash", with([](Route53Settings& s) { s.region = "us/east"; }), "region"},
      {"an API address with a path",
       with([](Route53Settings& s) { s.api_url = "https://route53.amazonaws.com/2013-04-01"; }),
       "api_url"},
      {"plain http to another host",
       with([](Route53Settings& s) { s.api_url = "http://route53.amazonaws.com"; }), "api_url"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    REQUIRE_FALSE(c.status.ok());
    CHECK(c.status.error().code == domain::ErrorCode::invalid_argument);
    CHECK(c.status.error().message.find(c.names) != std::string::npos);
  }
}

TEST_CASE(
    "route53: with a role, the key only assumes it and the role's credentials make the calls") {
  auto& server = testing::route53StandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  const auto record = txt("role", "role-value");
  {
    auto s = settingsFor(server);
    s.role_arn = Route53StandIn::kRoleArn;
    s.sts_url = server.apiUrl();
    Route53DnsProvider dns(s);
    const auto [assumedBefore, signedBefore] = server.assumed();
    REQUIRE_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
    CHECK(dns.waitVisible(record, std::chrono::seconds{3}).ok());
    REQUIRE(dns.cleanup(record).ok());
    const auto [assumedAfter, signedAfter] = server.assumed();
    CHECK(assumedAfter == assumedBefore + 1);  // once, kept for the calls that follow
    CHECK(signedAfter - signedBefore >= 5);    // zone, set, change, GetChange, set, ...
  }
  {
    auto s = settingsFor(server);
    s.role_arn = "arn:aws:iam::123456789012:role/someone-else";
    s.sts_url = server.apiUrl();
    Route53DnsProvider dns(s);
    const auto refused = dns.present(record);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::permission_denied);
    CHECK(refused.error().message.find("someone-else") != std::string::npos);
    CHECK(refused.error().message.find("trust policy") != std::string::npos);
    CHECK(refused.error().message.find(Route53StandIn::kSecretKey) == std::string::npos);
  }
  CHECK_FALSE(Route53DnsProvider::validate([] {
                Route53Settings s;
                s.access_key_id = "AKIAIOSFODNN7EXAMPLE";
                s.secret_access_key = "secret";
                s.role_arn = "certsteward-dns";  // a name, not an ARN
                return s;
              }())
                  .ok());
}
