// The DigitalOcean adapter's own behaviour against the DigitalOcean stand-in (tests/support,
// written from DigitalOcean's API reference; no live service): a name's records read across pages
// (links.pages.next) with only the one value removed, a 429 without Retry-After waited out, a
// domain the account does not have named in the error. The DnsProvider contract runs against the
// same stand-in (contract/dns_provider_suite.cpp).
#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include <certsteward/adapters/dns/digitalocean_dns_provider.hpp>
#include "support/digitalocean_standin.hpp"

using namespace certsteward;
using adapters::dns::DigitalOceanDnsProvider;
using adapters::dns::DigitalOceanSettings;
using testing::DigitalOceanStandIn;

namespace {

DigitalOceanSettings settingsFor(const DigitalOceanStandIn& server) {
  DigitalOceanSettings s;
  s.api_url = server.apiUrl();
  s.api_token = DigitalOceanStandIn::kToken;
  s.check_servers = {server.dnsAddress()};
  s.poll_interval = std::chrono::milliseconds{50};
  return s;
}

ports::TxtRecord txt(const std::string& value) {
  return {DigitalOceanStandIn::kZone, "_acme-challenge.paged.example.test.", value, 60};
}

}  // namespace

TEST_CASE("digitalocean: records across pages, one value removed, a 429 waited out") {
  auto& server = testing::digitalOceanStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  auto s = settingsFor(server);
  s.per_page = 2;  // five values: three pages
  s.max_retries = 1;
  DigitalOceanDnsProvider dns(s);
  std::vector<ports::TxtRecord> records;
  for (int i = 0; i < 5; ++i)
    records.push_back(txt("do-value-" + std::to_string(i)));
  for (const auto& r : records)
    REQUIRE(dns.present(r).ok());

  server.throttle(1);  // one 429 (no Retry-After): waited out, then the removal goes through
  const auto started = std::chrono::steady_clock::now();
  REQUIRE(dns.cleanup(records[4]).ok());  // on the third page
  CHECK(std::chrono::steady_clock::now() - started >= std::chrono::milliseconds{900});
  CHECK_FALSE(dns.waitVisible(records[4], std::chrono::milliseconds{300}).ok());
  CHECK(dns.waitVisible(records[0], std::chrono::seconds{2}).ok());
  CHECK(dns.waitVisible(records[3], std::chrono::seconds{2}).ok());
  for (const auto& r : records)
    REQUIRE(dns.cleanup(r).ok());
  CHECK_FALSE(dns.waitVisible(records[0], std::chrono::milliseconds{300}).ok());

  server.throttle(5);  // longer than the one retry: said in words
  const auto refused = dns.present(records[0]);
  server.throttle(0);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == domain::ErrorCode::unavailable);
  CHECK(refused.error().message.find("rate limit") != std::string::npos);
}

TEST_CASE("digitalocean: a domain the account does not have is named") {
  auto& server = testing::digitalOceanStandIn();
  REQUIRE_MESSAGE(server.available(), server.reason());
  DigitalOceanDnsProvider dns(settingsFor(server));
  const auto refused = dns.present({"absent.test.", "_acme-challenge.absent.test.", "v", 60});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
  CHECK(refused.error().message.find("no domain absent.test") != std::string::npos);
  CHECK(refused.error().message.find(DigitalOceanStandIn::kToken) == std::string::npos);
}
