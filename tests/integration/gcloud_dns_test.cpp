// The Google Cloud DNS adapter's own behaviour against the Cloud DNS stand-in (tests/support,
// written from Google's documentation; its token endpoint checks every JWT assertion's RS256
// signature with openssl; no live service): two values of one name kept in one set and one
// removed by one atomic change, removal idempotent, a change waited for until done and the value
// then asked of the DNS, the public zone found past a private one of the same name across pages
// and a zone by name or id, throttling waited out, the access token kept and renewed once it
// lapses, a deleted key or a wrong project refused in words, and key files that cannot work
// refused before any call, never quoted. The DnsProvider contract runs against the same
// stand-in (contract/dns_provider_suite.cpp).
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <chrono>
#include <string>

#include <certsteward/adapters/dns/gcloud_dns_provider.hpp>
#include "support/free_port.hpp"
#include "support/gcloud_standin.hpp"

using namespace certsteward;
using adapters::dns::GCloudDnsProvider;
using adapters::dns::GCloudSettings;
using testing::GCloudStandIn;

namespace {

GCloudSettings settingsFor(const GCloudStandIn& server) {
  GCloudSettings s;
  s.api_url = server.apiUrl();
  s.service_account_json = server.keyFileJson();
  s.check_servers = {server.dnsAddress()};  // the zone's nameServers are Google's names
  s.poll_interval = std::chrono::milliseconds{50};
  return s;
}

ports::TxtRecord txt(const std::string& label, const std::string& value) {
  return {GCloudStandIn::kZone, "_acme-challenge." + label + ".example.test.", value, 60};
}

std::string messageOf(const domain::Status& s) {
  return s.ok() ? std::string() : s.error().message;
}

// A line of the key file's private key (its base64 body): no message may hold it.
std::string keyMaterial(const std::string& keyFile) {
  const auto doc = boost::json::parse(keyFile).as_object();
  const std::string pem(doc.at("private_key").as_string());
  const auto line = pem.find('\n');
  return pem.substr(line + 1, 40);
}

// The key file with `field` set to `value` (removed when `value` is null).
std::string keyFileWith(const std::string& keyFile, const std::string& field,
                        const boost::json::value& value) {
  auto doc = boost::json::parse(keyFile).as_object();
  if (value.is_null()) {
    doc.erase(field);
  } else {
    doc[field] = value;
  }
  return boost::json::serialize(doc);
}

}  // namespace

TEST_CASE("gcloud: two values of one name in one set, one removed, the other kept") {
  auto& server = testing::gcloudStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  GCloudDnsProvider dns(settingsFor(server));
  const auto apex = txt("shared", "gcloud-apex-value");
  const auto wildcard = txt("shared", "gcloud-wildcard-value");
  const int records = server.records();
  const int changes = server.changes();
  REQUIRE_MESSAGE(dns.present(apex).ok(), messageOf(dns.present(apex)));
  REQUIRE(dns.present(wildcard).ok());  // the set deleted as read, the two values added
  CHECK(server.records() == records + 2);
  CHECK(server.changes() == changes + 2);
  CHECK(dns.present(apex).ok());  // already there: read, nothing changed
  CHECK(server.changes() == changes + 2);
  CHECK_MESSAGE(dns.waitVisible(apex, std::chrono::seconds{3}).ok(),
                messageOf(dns.waitVisible(apex, std::chrono::seconds{3})));
  CHECK(dns.waitVisible(wildcard, std::chrono::seconds{3}).ok());

  REQUIRE_MESSAGE(dns.cleanup(apex).ok(), messageOf(dns.cleanup(apex)));
  CHECK(server.records() == records + 1);
  CHECK_FALSE(dns.waitVisible(apex, std::chrono::milliseconds{300}).ok());
  CHECK(dns.waitVisible(wildcard, std::chrono::seconds{3}).ok());
  CHECK(dns.cleanup(apex).ok());  // gone already: nothing changed
  CHECK(server.changes() == changes + 3);

  REQUIRE(dns.cleanup(wildcard).ok());  // the last value: the set deleted, nothing added
  CHECK(server.records() == records);
  CHECK(server.changes() == changes + 4);
  CHECK(dns.cleanup(wildcard).ok());
  CHECK(server.changes() == changes + 4);
  CHECK_FALSE(dns.waitVisible(wildcard, std::chrono::milliseconds{300}).ok());
}

TEST_CASE("gcloud: visible once the change is done and the name servers answer the value") {
  auto& server = testing::gcloudStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  GCloudDnsProvider dns(settingsFor(server));
  const auto record = txt("visible", "gcloud-visible-value");
  REQUIRE_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
  // The change is "pending" at its first poll: not visible yet, in words.
  const auto early = dns.waitVisible(record, std::chrono::milliseconds{0});
  REQUIRE_FALSE(early.ok());
  CHECK(early.error().code == domain::ErrorCode::unavailable);
  CHECK(early.error().message.find("not done") != std::string::npos);
  CHECK(dns.waitVisible(record, std::chrono::seconds{3}).ok());

  // Done is not enough: the value must be answered where the CA will ask.
  auto s = settingsFor(server);
  s.check_servers = {"127.0.0.1:" + std::to_string(testing::freeLoopbackPort())};
  s.timeout = std::chrono::milliseconds{1000};
  GCloudDnsProvider silent(s);
  const auto unseen = silent.waitVisible(record, std::chrono::milliseconds{1500});
  REQUIRE_FALSE(unseen.ok());
  CHECK(unseen.error().code == domain::ErrorCode::unavailable);
  REQUIRE(dns.cleanup(record).ok());
}

TEST_CASE("gcloud: the public zone past a private one across pages, by name, by id, wrong ones") {
  auto& server = testing::gcloudStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  const auto record = txt("zones", "gcloud-zones-value");
  {
    // Found by dnsName: the private zone of the same name is listed first, one zone a page.
    GCloudDnsProvider dns(settingsFor(server));
    REQUIRE_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
    // The stand-in's DNS never serves a private zone's records.
    CHECK(dns.waitVisible(record, std::chrono::seconds{3}).ok());
    REQUIRE(dns.cleanup(record).ok());
  }
  // The public zone by its name, and by its id (the stand-in numbers its zones from
  // 4830917264651723000 in the order given: the private zone, then this one).
  for (const std::string zone : {GCloudStandIn::kZoneName, "4830917264651723001"}) {
    CAPTURE(zone);
    auto s = settingsFor(server);
    s.managed_zone = zone;
    GCloudDnsProvider dns(s);
    REQUIRE_MESSAGE(dns.present(record).ok(), messageOf(dns.present(record)));
    CHECK(dns.waitVisible(record, std::chrono::seconds{3}).ok());
    REQUIRE(dns.cleanup(record).ok());
  }
  {
    auto s = settingsFor(server);
    s.managed_zone = GCloudStandIn::kOtherZoneName;  // other.test's zone
    GCloudDnsProvider dns(s);
    const auto refused = dns.present(record);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("other.test.") != std::string::npos);
  }
  {
    auto s = settingsFor(server);
    s.managed_zone = "no-such-zone";
    GCloudDnsProvider dns(s);
    const auto refused = dns.present(record);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("no managed zone no-such-zone") != std::string::npos);
  }
  {
    GCloudDnsProvider dns(settingsFor(server));
    const auto refused = dns.present({"absent.test.", "_acme-challenge.absent.test.", "v", 60});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("no public managed zone absent.test.") != std::string::npos);
  }
}

TEST_CASE("gcloud: a rate-limited answer is waited out, and reported when it lasts") {
  auto& server = testing::gcloudStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  auto s = settingsFor(server);
  s.max_retries = 1;
  GCloudDnsProvider dns(s);
  const auto record = txt("throttled", "gcloud-throttled-value");

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

TEST_CASE("gcloud: the access token is kept, and renewed once when it lapses") {
  auto& server = testing::gcloudStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  GCloudDnsProvider dns(settingsFor(server));
  const auto first = txt("token", "gcloud-token-value-1");
  const auto second = txt("token", "gcloud-token-value-2");
  const int tokens = server.tokens();
  REQUIRE_MESSAGE(dns.present(first).ok(), messageOf(dns.present(first)));
  REQUIRE(dns.present(second).ok());
  CHECK(dns.waitVisible(second, std::chrono::seconds{3}).ok());
  CHECK(server.tokens() == tokens + 1);  // one token for every call

  server.expireTokens();  // the next call is answered 401: one new token, the call made again
  REQUIRE_MESSAGE(dns.cleanup(first).ok(), messageOf(dns.cleanup(first)));
  CHECK(server.tokens() == tokens + 2);
  REQUIRE(dns.cleanup(second).ok());
  CHECK(server.tokens() == tokens + 2);
  CHECK_FALSE(dns.waitVisible(second, std::chrono::milliseconds{300}).ok());
}

TEST_CASE("gcloud: a deleted key and a wrong project are refused in words, never quoting the key") {
  auto& server = testing::gcloudStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  const auto record = txt("denied", "gcloud-denied-value");
  {
    auto s = settingsFor(server);
    s.service_account_json = server.revokedKeyFileJson();
    REQUIRE(GCloudDnsProvider::validate(s).ok());  // well formed: only Google knows better
    GCloudDnsProvider dns(s);
    const auto denied = dns.present(record);
    REQUIRE_FALSE(denied.ok());
    CHECK(denied.error().code == domain::ErrorCode::permission_denied);
    CHECK(denied.error().message.find("Google") != std::string::npos);
    CHECK(denied.error().message.find("key file") != std::string::npos);
    CHECK(denied.error().message.find(keyMaterial(s.service_account_json)) == std::string::npos);
    CHECK(denied.error().message.find("PRIVATE KEY") == std::string::npos);
  }
  {
    auto s = settingsFor(server);
    s.project_id = "another-project";
    GCloudDnsProvider dns(s);
    const auto denied = dns.present(record);
    REQUIRE_FALSE(denied.ok());
    CHECK(denied.error().code == domain::ErrorCode::permission_denied);
    CHECK(denied.error().message.find("Google Cloud DNS") != std::string::npos);
    CHECK(denied.error().message.find("project_id (another-project)") != std::string::npos);
  }
}

TEST_CASE("gcloud: settings and key files that cannot work are refused before any call") {
  auto& server = testing::gcloudStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  const std::string key = server.keyFileJson();
  const std::string pem(boost::json::parse(key).as_object().at("private_key").as_string());
  const std::string material = keyMaterial(key);
  const struct {
    const char* what;
    std::string keyFile;
    const char* names;
  } cases[] = {
      {"no key file", "", "key file is missing"},
      {"not JSON", "{service_account", "JSON"},
      {"the private key alone", pem, "JSON"},
      {"a user's credentials", keyFileWith(key, "type", "authorized_user"), "service_account"},
      {"no client_email", keyFileWith(key, "client_email", nullptr), "client_email"},
      {"no private_key_id", keyFileWith(key, "private_key_id", nullptr), "private_key_id"},
      {"no private key", keyFileWith(key, "private_key", nullptr), "private_key"},
      {"a key that is not one",
       keyFileWith(key, "private_key",
                   "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"),
       "private_key"},
      {"no token_uri", keyFileWith(key, "token_uri", nullptr), "token_uri"},
      {"plain http to another host",
       keyFileWith(key, "token_uri", "http://oauth2.example.com/token"), "token_uri"},
      {"no project", keyFileWith(key, "project_id", nullptr), "project_id"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    auto s = settingsFor(server);
    s.service_account_json = c.keyFile;
    const auto refused = GCloudDnsProvider::validate(s);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::invalid_argument);
    CHECK(refused.error().message.find(c.names) != std::string::npos);
    CHECK(refused.error().message.find(material) == std::string::npos);
    // A provider made anyway refuses every call in the same words, before any request.
    GCloudDnsProvider dns(s);
    const auto presented = dns.present(txt("invalid", "gcloud-invalid-value"));
    REQUIRE_FALSE(presented.ok());
    CHECK(presented.error().code == domain::ErrorCode::invalid_argument);
  }
  const struct {
    const char* what;
    GCloudSettings settings;
    const char* names;
  } settings[] = {
      {"a managed zone that is a DNS name", {.managed_zone = "Example.Test."}, "managed_zone"},
      {"a project that is not an id", {.project_id = "My Project"}, "project_id"},
      {"plain http to another host", {.api_url = "http://dns.example.com/dns/v1"}, "api_url"},
      {"a URL with a user", {.api_url = "https://u@dns.googleapis.com/dns/v1"}, "api_url"},
  };
  for (const auto& c : settings) {
    CAPTURE(c.what);
    auto s = c.settings;
    s.service_account_json = key;
    const auto refused = GCloudDnsProvider::validate(s);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::invalid_argument);
    CHECK(refused.error().message.find(c.names) != std::string::npos);
  }
  CHECK(GCloudDnsProvider::validate(settingsFor(server)).ok());
  GCloudSettings defaults;  // the default API with the key file alone, its own project
  defaults.service_account_json = key;
  CHECK(GCloudDnsProvider::validate(defaults).ok());
}
