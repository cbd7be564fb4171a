// The Hetzner adapter's own behaviour against the Hetzner stand-in (tests/support, written from
// the Hetzner Cloud API reference; no live service): two values of one name with only the one
// removed (each change an Action waited for), removal idempotent, a refused token named without
// quoting it, the zone found by name and by id (a wrong id named), a 429 without Retry-After
// waited out, a value visible only once the stand-in's DNS answers it, and settings refused before
// any call. The DnsProvider contract runs against the same stand-in
// (contract/dns_provider_suite.cpp).
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include <certsteward/adapters/dns/hetzner_dns_provider.hpp>
#include "support/hetzner_standin.hpp"

using namespace certsteward;
using adapters::dns::HetznerDnsProvider;
using adapters::dns::HetznerSettings;
using testing::HetznerStandIn;

namespace {

HetznerSettings settingsFor(const HetznerStandIn& server) {
  HetznerSettings s;
  s.api_url = server.apiUrl();
  s.api_token = HetznerStandIn::kToken;
  s.check_servers = {server.dnsAddress()};
  s.poll_interval = std::chrono::milliseconds{50};
  return s;
}

ports::TxtRecord txt(const std::string& label, const std::string& value) {
  return {HetznerStandIn::kZone, "_acme-challenge." + label + ".example.test.", value, 60};
}

std::string messageOf(const domain::Status& s) {
  return s.ok() ? std::string() : s.error().message;
}

}  // namespace

TEST_CASE("hetzner: two values of one name, one removed and the other kept, removal idempotent") {
  auto& server = testing::hetznerStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  HetznerDnsProvider dns(settingsFor(server));
  const auto apex = txt("shared", "hetzner-apex-value");
  const auto wildcard = txt("shared", "hetzner-wildcard-value");
  const int records = server.records();
  const int writes = server.writes();
  REQUIRE_MESSAGE(dns.present(apex).ok(), messageOf(dns.present(apex)));
  REQUIRE_MESSAGE(dns.present(wildcard).ok(), messageOf(dns.present(wildcard)));
  CHECK(server.records() == records + 2);
  CHECK(server.writes() == writes + 2);  // one add_records each
  const int requests = server.requests();
  CHECK(dns.present(apex).ok());  // already there: one read of the name, nothing written
  CHECK(server.requests() == requests + 1);
  CHECK(server.writes() == writes + 2);
  CHECK(dns.waitVisible(apex, std::chrono::seconds{2}).ok());
  CHECK(dns.waitVisible(wildcard, std::chrono::seconds{2}).ok());

  REQUIRE_MESSAGE(dns.cleanup(apex).ok(), messageOf(dns.cleanup(apex)));
  CHECK(server.records() == records + 1);
  CHECK(server.writes() == writes + 3);
  CHECK_FALSE(dns.waitVisible(apex, std::chrono::milliseconds{300}).ok());
  CHECK(dns.waitVisible(wildcard, std::chrono::seconds{2}).ok());  // the other value stays
  CHECK(dns.cleanup(apex).ok());                                   // gone already: nothing written
  CHECK(server.writes() == writes + 3);

  REQUIRE(dns.cleanup(wildcard).ok());  // the last value: Hetzner drops the record set
  CHECK(server.records() == records);
  CHECK(dns.cleanup(wildcard).ok());  // no record set at all
  CHECK(server.writes() == writes + 4);
  CHECK_FALSE(dns.waitVisible(wildcard, std::chrono::milliseconds{300}).ok());

  // The zone's own name: the record set "@".
  const ports::TxtRecord top{HetznerStandIn::kZone, HetznerStandIn::kZone, "hetzner-top-value", 60};
  REQUIRE_MESSAGE(dns.present(top).ok(), messageOf(dns.present(top)));
  CHECK(dns.waitVisible(top, std::chrono::seconds{2}).ok());
  REQUIRE(dns.cleanup(top).ok());
  CHECK_FALSE(dns.waitVisible(top, std::chrono::milliseconds{300}).ok());
}

TEST_CASE("hetzner: a refused token is permission_denied, naming Hetzner without quoting it") {
  auto& server = testing::hetznerStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  auto s = settingsFor(server);
  s.api_token = "hcloudNotTheToken0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ";
  HetznerDnsProvider dns(s);
  const auto refused = dns.present(txt("denied", "hetzner-denied-value"));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == domain::ErrorCode::permission_denied);
  CHECK(refused.error().message.find("Hetzner") != std::string::npos);
  CHECK(refused.error().message.find("token") != std::string::npos);
  CHECK(refused.error().message.find(s.api_token) == std::string::npos);
  CHECK(refused.error().message.find(HetznerStandIn::kToken) == std::string::npos);
}

TEST_CASE("hetzner: the zone by name and by id, a wrong id named, an unknown zone or id") {
  auto& server = testing::hetznerStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  {
    auto s = settingsFor(server);
    s.zone_id = HetznerStandIn::kZoneId;
    HetznerDnsProvider dns(s);
    const auto record = txt("by-id", "hetzner-by-id-value");
    REQUIRE_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
    CHECK(dns.waitVisible(record, std::chrono::seconds{2}).ok());
    // Found by name, the same record set.
    HetznerDnsProvider byName(settingsFor(server));
    CHECK(byName.waitVisible(record, std::chrono::seconds{2}).ok());
    REQUIRE(byName.cleanup(record).ok());
    CHECK_FALSE(dns.waitVisible(record, std::chrono::milliseconds{300}).ok());
  }
  {
    auto s = settingsFor(server);
    s.zone_id = HetznerStandIn::kOtherZoneId;  // the id of other.test
    HetznerDnsProvider dns(s);
    const auto refused = dns.present(txt("wrong-id", "hetzner-wrong-id-value"));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("other.test") != std::string::npos);
  }
  {
    auto s = settingsFor(server);
    s.zone_id = "590000000000999";  // well formed, unknown: the API's 404
    HetznerDnsProvider dns(s);
    const auto refused = dns.present(txt("unknown-id", "hetzner-unknown-id-value"));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("zone_id") != std::string::npos);
  }
  {
    HetznerDnsProvider dns(settingsFor(server));
    const auto refused = dns.present({"absent.test.", "_acme-challenge.absent.test.", "v", 60});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("no zone absent.test") != std::string::npos);
  }
}

TEST_CASE("hetzner: a 429 without Retry-After is waited out, and reported when it lasts") {
  auto& server = testing::hetznerStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  auto s = settingsFor(server);
  s.max_retries = 1;
  HetznerDnsProvider dns(s);
  const auto record = txt("throttled", "hetzner-throttled-value");

  server.throttle(1);  // one 429 (no Retry-After): waited out 1 s, then answers
  const auto started = std::chrono::steady_clock::now();
  CHECK_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
  CHECK(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds{900});
  CHECK(dns.waitVisible(record, std::chrono::seconds{2}).ok());

  server.throttle(5);  // longer than the one retry allowed
  const auto refused = dns.cleanup(record);
  server.throttle(0);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == domain::ErrorCode::unavailable);
  CHECK(refused.error().message.find("rate limit") != std::string::npos);
  REQUIRE(dns.cleanup(record).ok());
  CHECK_FALSE(dns.waitVisible(record, std::chrono::milliseconds{300}).ok());
}

TEST_CASE("hetzner: a value is visible only once the name servers answer it") {
  auto& server = testing::hetznerStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  HetznerDnsProvider writer(settingsFor(server));
  // Asks once per wait: a poll interval longer than the time given.
  auto slow = settingsFor(server);
  slow.poll_interval = std::chrono::seconds{1};
  HetznerDnsProvider reader(slow);
  const auto record = txt("eventual", "hetzner-eventual-value");
  REQUIRE_MESSAGE(writer.present(record).ok(), messageOf(writer.present(record)));
  // The Action has succeeded, but the stand-in's name servers answer the value only from the
  // third query for the name on (kVisibleAfter).
  static_assert(HetznerStandIn::kVisibleAfter == 2);
  CHECK_FALSE(reader.waitVisible(record, std::chrono::milliseconds{100}).ok());
  CHECK_FALSE(reader.waitVisible(record, std::chrono::milliseconds{100}).ok());
  CHECK(reader.waitVisible(record, std::chrono::milliseconds{100}).ok());
  REQUIRE(writer.cleanup(record).ok());
  CHECK_FALSE(reader.waitVisible(record, std::chrono::milliseconds{100}).ok());
}

TEST_CASE("hetzner: settings a call could not work with are refused before any call") {
  const struct {
    const char* what;
    HetznerSettings settings;
    const char* names;
  } cases[] = {
      {"no token", {.api_token = ""}, "token"},
      {"a token with 'Bearer'", {.api_token = "Bearer abc"}, "token"},
      {"a zone id that is a name", {.api_token = "t", .zone_id = "example.com"}, "zone_id"},
      {"plain http to another host",
       {.api_url = "http://api.example.com/v1", .api_token = "t"},
       "api_url"},
      {"a URL with a user",
       {.api_url = "https://u@api.hetzner.cloud/v1", .api_token = "t"},
       "api_url"},
      {"a URL with a query",
       {.api_url = "https://api.hetzner.cloud/v1?x=1", .api_token = "t"},
       "api_url"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    const auto refused = HetznerDnsProvider::validate(c.settings);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::invalid_argument);
    CHECK(refused.error().message.find(c.names) != std::string::npos);
  }
  CHECK(HetznerDnsProvider::validate({.api_token = "t"}).ok());  // the defaults
  CHECK(HetznerDnsProvider::validate({.api_token = "t", .zone_id = "590000000000001"}).ok());
}
