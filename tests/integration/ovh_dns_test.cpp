// The OVHcloud adapter's own behaviour against the OVHcloud stand-in (tests/support, written from
// OVHcloud's guide, API console and clients; it checks every call's signature and timestamp; no
// live service): two values of one name as two records and one removed, removal idempotent,
// every change published by a refresh of the zone (its DNS serves nothing else), the value asked
// of the DNS, calls signed at the server's time when its clock is off this machine's (and read
// again when it moves), throttling waited out, wrong keys refused in words that never quote a
// secret, and settings and secrets refused before any call. The DnsProvider contract runs
// against the same stand-in (contract/dns_provider_suite.cpp).
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include <certsteward/adapters/dns/ovh_dns_provider.hpp>
#include "support/free_port.hpp"
#include "support/ovh_standin.hpp"

using namespace certsteward;
using adapters::dns::OvhDnsProvider;
using adapters::dns::OvhSettings;
using testing::OvhStandIn;

namespace {

OvhSettings settingsFor(const OvhStandIn& server) {
  OvhSettings s;
  s.api_url = server.apiUrl();
  s.application_key = OvhStandIn::kApplicationKey;
  s.application_secret = OvhStandIn::kApplicationSecret;
  s.consumer_key = OvhStandIn::kConsumerKey;
  s.check_servers = {server.dnsAddress()};  // the zone's name servers are OVH's names
  s.poll_interval = std::chrono::milliseconds{50};
  return s;
}

ports::TxtRecord txt(const std::string& label, const std::string& value) {
  return {OvhStandIn::kZone, "_acme-challenge." + label + ".example.test.", value, 60};
}

std::string messageOf(const domain::Status& s) {
  return s.ok() ? std::string() : s.error().message;
}

bool quotesSecret(const std::string& message) {
  return message.find(OvhStandIn::kApplicationSecret) != std::string::npos ||
         message.find(OvhStandIn::kConsumerKey) != std::string::npos;
}

// The stand-in's clock set off the machine's for one scope.
struct ClockOffset {
  const OvhStandIn& server;
  ClockOffset(const OvhStandIn& s, int seconds) : server(s) { server.setClockOffset(seconds); }
  ~ClockOffset() { server.setClockOffset(0); }
};

}  // namespace

TEST_CASE("ovh: two values of one name, one removed, the other kept, each change published") {
  auto& server = testing::ovhStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  OvhDnsProvider dns(settingsFor(server));
  const auto apex = txt("shared", "ovh-apex-value");
  const auto wildcard = txt("shared", "ovh-wildcard-value");
  const int records = server.records();
  const int refreshes = server.refreshes();
  const int published = server.published();
  REQUIRE_MESSAGE(dns.present(apex).ok(), messageOf(dns.present(apex)));
  REQUIRE(dns.present(wildcard).ok());
  CHECK(server.records() == records + 2);
  CHECK(server.refreshes() == refreshes + 2);  // the DNS serves a record only once refreshed
  CHECK(server.published() == published + 2);
  CHECK(dns.present(apex).ok());  // already there: nothing written, nothing to publish
  CHECK(server.records() == records + 2);
  CHECK(server.refreshes() == refreshes + 2);
  CHECK_MESSAGE(dns.waitVisible(apex, std::chrono::seconds{3}).ok(),
                messageOf(dns.waitVisible(apex, std::chrono::seconds{3})));
  CHECK(dns.waitVisible(wildcard, std::chrono::seconds{3}).ok());

  REQUIRE_MESSAGE(dns.cleanup(apex).ok(), messageOf(dns.cleanup(apex)));
  CHECK(server.records() == records + 1);
  // A deleted record is served until the next refresh: gone, so the zone was refreshed.
  CHECK(server.refreshes() == refreshes + 3);
  CHECK(server.published() == published + 1);
  CHECK_FALSE(dns.waitVisible(apex, std::chrono::milliseconds{300}).ok());
  CHECK(dns.waitVisible(wildcard, std::chrono::seconds{3}).ok());
  CHECK(dns.cleanup(apex).ok());  // gone already: nothing deleted, nothing to publish
  CHECK(server.refreshes() == refreshes + 3);

  REQUIRE(dns.cleanup(wildcard).ok());
  CHECK(server.records() == records);
  CHECK(server.published() == published);
  CHECK(dns.cleanup(wildcard).ok());
  CHECK(server.refreshes() == refreshes + 4);
  CHECK_FALSE(dns.waitVisible(wildcard, std::chrono::milliseconds{300}).ok());
}

TEST_CASE("ovh: visible only when the name servers answer the value") {
  auto& server = testing::ovhStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  OvhDnsProvider dns(settingsFor(server));
  const auto record = txt("visible", "ovh-visible-value");
  REQUIRE_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
  CHECK(dns.waitVisible(record, std::chrono::seconds{3}).ok());
  // Written and published is not enough: the value must be answered where the CA will ask.
  auto s = settingsFor(server);
  s.check_servers = {"127.0.0.1:" + std::to_string(testing::freeLoopbackPort())};
  s.timeout = std::chrono::milliseconds{1000};
  OvhDnsProvider silent(s);
  const auto unseen = silent.waitVisible(record, std::chrono::milliseconds{1500});
  REQUIRE_FALSE(unseen.ok());
  CHECK(unseen.error().code == domain::ErrorCode::unavailable);
  REQUIRE(dns.cleanup(record).ok());
}

TEST_CASE("ovh: calls are signed at the server's time, read again when it moves") {
  auto& server = testing::ovhStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  const auto record = txt("clock", "ovh-clock-value");
  const ClockOffset ahead(server, 3600);  // far outside the 300 s the server allows
  OvhDnsProvider dns(settingsFor(server));
  REQUIRE_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
  CHECK(dns.waitVisible(record, std::chrono::seconds{3}).ok());

  // The server's clock moves: the offset kept is refused once (QUERY_TIME_OUT), read again.
  server.setClockOffset(-3600);
  REQUIRE_MESSAGE(dns.cleanup(record).ok(), messageOf(dns.cleanup(record)));
  CHECK_FALSE(dns.waitVisible(record, std::chrono::milliseconds{300}).ok());
}

TEST_CASE("ovh: a rate-limited answer is waited out, and reported when it lasts") {
  auto& server = testing::ovhStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  auto s = settingsFor(server);
  s.max_retries = 1;
  OvhDnsProvider dns(s);
  const auto record = txt("throttled", "ovh-throttled-value");

  server.throttle(1);  // one 429 (no Retry-After): waited out 1 s, then answered
  const auto started = std::chrono::steady_clock::now();
  CHECK_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
  CHECK(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds{900});

  server.throttle(5);  // longer than the one retry allowed
  const auto refused = dns.cleanup(record);
  server.throttle(0);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == domain::ErrorCode::unavailable);
  CHECK(refused.error().message.find("rate limit") != std::string::npos);
  REQUIRE(dns.cleanup(record).ok());
}

TEST_CASE("ovh: wrong keys are refused in words naming what to check, never quoting a secret") {
  auto& server = testing::ovhStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  const auto record = txt("denied", "ovh-denied-value");
  const struct {
    const char* what;
    OvhSettings settings;
    const char* names;
  } cases[] = {
      {"a wrong application secret",
       [&] {
         auto s = settingsFor(server);
         s.application_secret = "NotTheApplicationSecret012345678";
         return s;
       }(),
       "application secret"},
      {"an unknown consumer key",
       [&] {
         auto s = settingsFor(server);
         s.consumer_key = "UnknownConsumerKey0123456789abcd";
         return s;
       }(),
       "consumer key"},
      {"a consumer key never validated",
       [&] {
         auto s = settingsFor(server);
         s.consumer_key = OvhStandIn::kPendingConsumerKey;
         return s;
       }(),
       "validate it"},
      {"a read-only consumer key",
       [&] {
         auto s = settingsFor(server);
         s.consumer_key = OvhStandIn::kReadOnlyConsumerKey;
         return s;
       }(),
       "access rules"},
      {"an unknown application key",
       [&] {
         auto s = settingsFor(server);
         s.application_key = "UnknownAppKey0AK";
         return s;
       }(),
       "application_key"},
  };
  const int records = server.records();
  for (const auto& c : cases) {
    CAPTURE(c.what);
    OvhDnsProvider dns(c.settings);
    const auto denied = dns.present(record);
    REQUIRE_FALSE(denied.ok());
    CHECK(denied.error().code == domain::ErrorCode::permission_denied);
    CHECK(denied.error().message.find("OVHcloud") != std::string::npos);
    CHECK(denied.error().message.find(c.names) != std::string::npos);
    CHECK_FALSE(quotesSecret(denied.error().message));
    CHECK(denied.error().message.find(c.settings.application_secret) == std::string::npos);
    CHECK(denied.error().message.find(c.settings.consumer_key) == std::string::npos);
  }
  CHECK(server.records() == records);

  OvhDnsProvider dns(settingsFor(server));
  const auto absent = dns.present({"absent.test.", "_acme-challenge.absent.test.", "v", 60});
  REQUIRE_FALSE(absent.ok());
  CHECK(absent.error().code == domain::ErrorCode::failed_precondition);
  CHECK(absent.error().message.find("no DNS zone absent.test") != std::string::npos);
}

TEST_CASE("ovh: settings and secrets that cannot work are refused before any call") {
  const struct {
    const char* what;
    OvhSettings settings;
    const char* names;
  } cases[] = {
      {"no application key", {.application_secret = "as", .consumer_key = "ck"}, "application_key"},
      {"an application key with spaces",
       {.application_key = "ak ak", .application_secret = "as", .consumer_key = "ck"},
       "application_key"},
      {"no application secret", {.application_key = "ak", .consumer_key = "ck"}, "secret"},
      {"no consumer key", {.application_key = "ak", .application_secret = "as"}, "consumer key"},
      {"a consumer key with a line break",
       {.application_key = "ak", .application_secret = "as", .consumer_key = "ck\n"},
       "consumer key"},
      {"plain http to another host",
       {.api_url = "http://eu.api.example.com/1.0",
        .application_key = "ak",
        .application_secret = "as",
        .consumer_key = "ck"},
       "api_url"},
      {"a URL with a user",
       {.api_url = "https://u@eu.api.ovh.com/1.0",
        .application_key = "ak",
        .application_secret = "as",
        .consumer_key = "ck"},
       "api_url"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    const auto refused = OvhDnsProvider::validate(c.settings);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::invalid_argument);
    CHECK(refused.error().message.find(c.names) != std::string::npos);
  }
  CHECK(OvhDnsProvider::validate(
            {.application_key = "ak", .application_secret = "as", .consumer_key = "ck"})
            .ok());  // the default API

  // The credential's one secret: "<application secret>:<consumer key>", nothing else.
  const auto split = OvhDnsProvider::splitSecret("SecretPartAS:SecretPartCK");
  REQUIRE(split.ok());
  CHECK(split->first == "SecretPartAS");
  CHECK(split->second == "SecretPartCK");
  for (const std::string secret :
       {"", "SecretPartAS", "SecretPartAS:SecretPartCK:SecretPartXX", ":SecretPartCK",
        "SecretPartAS:", "SecretPartAS :SecretPartCK", "SecretPartAS:SecretPartCK\n"}) {
    CAPTURE(secret);
    const auto refused = OvhDnsProvider::splitSecret(secret);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::invalid_argument);
    CHECK(refused.error().message.find("<application secret>:<consumer key>") != std::string::npos);
    CHECK(refused.error().message.find("SecretPart") == std::string::npos);
  }
}
