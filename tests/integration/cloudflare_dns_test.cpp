// The Cloudflare adapter's own behaviour against the Cloudflare stand-in (tests/support, written
// from Cloudflare's API documentation; no live service): rate limits waited out or reported, a
// name's records read across pages, a zone given by id (and a wrong one named), a zone the
// token cannot see, and settings refused before any call. The DnsProvider contract runs against
// the same stand-in (contract/dns_provider_suite.cpp).
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include <certsteward/adapters/dns/cloudflare_dns_provider.hpp>
#include "support/cloudflare_standin.hpp"

using namespace certsteward;
using adapters::dns::CloudflareDnsProvider;
using adapters::dns::CloudflareSettings;
using testing::CloudflareStandIn;

namespace {

CloudflareSettings settingsFor(const CloudflareStandIn& server) {
  CloudflareSettings s;
  s.api_url = server.apiUrl();
  s.api_token = CloudflareStandIn::kToken;
  s.poll_interval = std::chrono::milliseconds{50};
  return s;
}

ports::TxtRecord txt(const std::string& label, const std::string& value) {
  return {CloudflareStandIn::kZone, "_acme-challenge." + label + ".example.test.", value, 60};
}

std::string messageOf(const domain::Status& s) {
  return s.ok() ? std::string() : s.error().message;
}

}  // namespace

TEST_CASE("cloudflare: a rate-limited answer is waited out, and reported when it lasts") {
  auto& server = testing::cloudflareStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  auto s = settingsFor(server);
  s.max_retries = 1;
  CloudflareDnsProvider dns(s);
  const auto record = txt("throttled", "rate-limit-value-1");

  server.throttle(1);  // one 429 (Retry-After: 1), then answers
  const auto before = server.requests();
  const auto started = std::chrono::steady_clock::now();
  CHECK_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
  CHECK(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds{900});
  CHECK(server.requests() - before >= 3);  // the 429, the zone, the records, the create

  server.throttle(5);  // longer than the one retry allowed
  const auto refused = dns.cleanup(record);
  server.throttle(0);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == domain::ErrorCode::unavailable);
  CHECK(refused.error().message.find("rate limit") != std::string::npos);
  REQUIRE(dns.cleanup(record).ok());
}

TEST_CASE("cloudflare: a name's records are read across pages, and only the one value goes") {
  auto& server = testing::cloudflareStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  auto s = settingsFor(server);
  s.per_page = 5;  // seven values: two pages
  CloudflareDnsProvider dns(s);
  std::vector<ports::TxtRecord> records;
  for (int i = 0; i < 7; ++i)
    records.push_back(txt("paged", "paged-value-" + std::to_string(i)));
  const int before = server.records();
  for (const auto& r : records)
    REQUIRE_MESSAGE(dns.present(r).ok(), messageOf(dns.present(r)));
  CHECK(server.records() == before + 7);
  for (const auto& r : records)  // present again: found (on either page), not written twice
    CHECK(dns.present(r).ok());
  CHECK(server.records() == before + 7);

  REQUIRE(dns.cleanup(records[6]).ok());  // on the second page
  CHECK_FALSE(dns.waitVisible(records[6], std::chrono::milliseconds{300}).ok());
  CHECK(dns.waitVisible(records[0], std::chrono::seconds{2}).ok());
  CHECK(dns.waitVisible(records[5], std::chrono::seconds{2}).ok());
  for (const auto& r : records)
    REQUIRE(dns.cleanup(r).ok());
  CHECK_FALSE(dns.waitVisible(records[0], std::chrono::milliseconds{300}).ok());
}

TEST_CASE("cloudflare: a zone by id, a wrong id named, a zone the token cannot see") {
  auto& server = testing::cloudflareStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  {
    auto s = settingsFor(server);
    s.zone_id = CloudflareStandIn::kZoneId;
    CloudflareDnsProvider dns(s);
    const auto record = txt("by-id", "by-id-value");
    REQUIRE_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
    CHECK(dns.waitVisible(record, std::chrono::seconds{2}).ok());
    REQUIRE(dns.cleanup(record).ok());
  }
  {
    auto s = settingsFor(server);
    s.zone_id = CloudflareStandIn::kOtherZoneId;  // the id of other.test
    CloudflareDnsProvider dns(s);
    const auto refused = dns.present(txt("wrong-id", "wrong-id-value"));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("other.test") != std::string::npos);
  }
  {
    CloudflareDnsProvider dns(settingsFor(server));
    const auto refused = dns.present({"absent.test.", "_acme-challenge.absent.test.", "v", 60});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("no zone absent.test") != std::string::npos);
  }
  {
    auto s = settingsFor(server);
    s.zone_id = "00000000000000000000000000000000";  // well formed, unknown: the API's 404
    CloudflareDnsProvider dns(s);
    const auto refused = dns.present(txt("unknown-id", "unknown-id-value"));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find(CloudflareStandIn::kToken) == std::string::npos);
  }
}

TEST_CASE("cloudflare: settings a call could not work with are refused before any call") {
  const struct {
    const char* what;
    CloudflareSettings settings;
    const char* names;
  } cases[] = {
      {"no token", {.api_token = ""}, "token"},
      {"a token with 'Bearer'", {.api_token = "Bearer abc"}, "token"},
      {"a zone id that is a name", {.api_token = "t", .zone_id = "example.com"}, "zone_id"},
      {"plain http to another host",
       {.api_url = "http://api.example.com/client/v4", .api_token = "t"},
       "api_url"},
      {"a URL with a user",
       {.api_url = "https://u@api.cloudflare.com/client/v4", .api_token = "t"},
       "api_url"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    const auto refused = CloudflareDnsProvider::validate(c.settings);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::invalid_argument);
    CHECK(refused.error().message.find(c.names) != std::string::npos);
  }
  CHECK(CloudflareDnsProvider::validate({.api_token = "t"}).ok());  // the defaults
}
