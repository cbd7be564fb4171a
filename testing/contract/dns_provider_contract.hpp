// Contract of DnsProviderFactory and the DnsProviders it makes, on every adapter (and on an
// embedding team's own): a record present is visible, cleanup removes exactly that record (and
// removing an absent one succeeds), a record never presented is not visible within the time given,
// a record outside the zone is invalid_argument, a refused secret permission_denied and an
// unreachable server unavailable; the factory makes the kinds it lists and refuses an unknown
// kind (failed_precondition) and a credential lacking a setting (invalid_argument naming it).
//
// A suite header: include it from one test file of its own, after defining
// CERTSTEWARD_DNS_HARNESSES as the list of harnesses to run it against. A harness is
// default-constructible and provides:
//   bool available(); std::string reason();      // its server runs here, or why not
//   ports::DnsProviderFactory& factory();
//   domain::DnsCredential credential();          // reaches the zone's server
//   std::string secret(), wrongSecret();         // the one the server accepts, one it refuses
//   std::string zone();                          // fully qualified: "example.test."
//   // A credential of the same kind lacking a setting the kind needs, and that setting's name;
//   // nullopt when the kind needs none.
//   std::optional<std::pair<domain::DnsCredential, std::string>> incomplete();
//   void makeUnreachable();                      // credential() now names a server that is down
// Every case uses names of its own under the zone (a real server may be shared by the cases).
#pragma once

#ifndef CERTSTEWARD_DNS_HARNESSES
#error "define CERTSTEWARD_DNS_HARNESSES (the DNS provider harnesses) before including the suite"
#endif

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include <certsteward/ports/dns_provider_factory.hpp>

namespace certsteward::testing::dns_contract {

// The provider for `secret` (the harness's own when empty); the case fails when there is none.
template <class H>
ports::DnsProviderPtr provider(H& h, const std::string& secret = {}) {
  auto made = h.factory().make(h.credential(), secret.empty() ? h.secret() : secret);
  REQUIRE_MESSAGE(made.ok(), (made.ok() ? std::string() : made.error().message));
  return std::move(*made);
}

template <class H>
ports::TxtRecord record(H& h, const std::string& label, const std::string& value) {
  return {h.zone(), "_acme-challenge." + label + "." + h.zone(), value, 60};
}

inline bool isVisible(ports::DnsProvider& dns, const ports::TxtRecord& r,
                      std::chrono::milliseconds within) {
  return dns.waitVisible(r, within).ok();
}

}  // namespace certsteward::testing::dns_contract

TEST_CASE_TEMPLATE("dns provider: a record present is visible, cleanup removes exactly that record",
                   H, CERTSTEWARD_DNS_HARNESSES) {
  using namespace certsteward::testing::dns_contract;
  using namespace std::chrono_literals;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  auto dns = provider(h);
  // A wildcard and its base name share one owner name: two values there, and one elsewhere.
  const auto first = record(h, "contract-www", "Y29udHJhY3QtZmlyc3QtdmFsdWUtMDAwMDAwMDAwMDAw");
  const auto second = record(h, "contract-www", "Y29udHJhY3Qtc2Vjb25kLXZhbHVlLTExMTExMTExMTEx");
  const auto other = record(h, "contract-api", "Y29udHJhY3Qtb3RoZXItdmFsdWUtMjIyMjIyMjIyMjIy");
  for (const auto* r : {&first, &second, &other}) {
    const auto presented = dns->present(*r);
    REQUIRE_MESSAGE(presented.ok(), (presented.ok() ? std::string() : presented.error().message));
  }
  CHECK(isVisible(*dns, first, 2s));
  CHECK(isVisible(*dns, second, 2s));
  CHECK(isVisible(*dns, other, 2s));

  REQUIRE(dns->cleanup(first).ok());
  CHECK_FALSE(isVisible(*dns, first, 300ms));
  CHECK(isVisible(*dns, second, 2s));
  CHECK(isVisible(*dns, other, 2s));
  CHECK(dns->cleanup(first).ok());  // removing an absent record succeeds

  // Another provider of the same credential sees and removes what this one published.
  auto again = provider(h);
  CHECK(isVisible(*again, second, 2s));
  REQUIRE(again->cleanup(second).ok());
  REQUIRE(again->cleanup(other).ok());
  CHECK_FALSE(isVisible(*dns, second, 300ms));
  CHECK_FALSE(isVisible(*dns, other, 300ms));
}

TEST_CASE_TEMPLATE(
    "dns provider: a record never presented is unavailable within the time given, one outside the "
    "zone is invalid_argument",
    H, CERTSTEWARD_DNS_HARNESSES) {
  using namespace certsteward::testing::dns_contract;
  using namespace std::chrono_literals;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  auto dns = provider(h);
  const auto started = std::chrono::steady_clock::now();
  const auto never = dns->waitVisible(record(h, "contract-never", "bmV2ZXItcHJlc2VudGVk"), 400ms);
  REQUIRE_FALSE(never.ok());
  CHECK(never.error().code == certsteward::domain::ErrorCode::unavailable);
  CHECK(std::chrono::steady_clock::now() - started < 5s);

  const certsteward::ports::TxtRecord outside{h.zone(), "_acme-challenge.contract.other.invalid.",
                                              "b3V0c2lkZS10aGUtem9uZQ", 60};
  const auto refused = dns->present(outside);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == certsteward::domain::ErrorCode::invalid_argument);
}

TEST_CASE_TEMPLATE(
    "dns provider: a refused secret is permission_denied without quoting it, an unreachable server "
    "unavailable",
    H, CERTSTEWARD_DNS_HARNESSES) {
  using namespace certsteward::testing::dns_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  const auto r = record(h, "contract-denied", "ZGVuaWVkLXZhbHVlLTAwMDAwMDAwMDAwMA");
  auto forged = provider(h, h.wrongSecret());
  const auto denied = forged->present(r);
  REQUIRE_FALSE(denied.ok());
  CHECK(denied.error().code == certsteward::domain::ErrorCode::permission_denied);
  CHECK(denied.error().message.find(h.wrongSecret()) == std::string::npos);
  CHECK(denied.error().message.find(h.secret()) == std::string::npos);
  CHECK_FALSE(isVisible(*provider(h), r, std::chrono::milliseconds{300}));

  h.makeUnreachable();
  auto down = provider(h);
  const auto presented = down->present(r);
  REQUIRE_FALSE(presented.ok());
  CHECK(presented.error().code == certsteward::domain::ErrorCode::unavailable);
  const auto cleaned = down->cleanup(r);
  REQUIRE_FALSE(cleaned.ok());
  CHECK(cleaned.error().code == certsteward::domain::ErrorCode::unavailable);
}

TEST_CASE_TEMPLATE(
    "dns provider factory: it makes the kinds it lists, refuses an unknown kind and a credential "
    "lacking a setting",
    H, CERTSTEWARD_DNS_HARNESSES) {
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  const auto kinds = h.factory().kinds();
  const auto listed = std::find_if(kinds.begin(), kinds.end(), [&](const auto& kind) {
    return kind.name == h.credential().provider;
  });
  REQUIRE(listed != kinds.end());
  CHECK(listed->available);
  CHECK(h.factory().make(h.credential(), h.secret()).ok());

  auto unknown = h.credential();
  unknown.provider = "no-such-provider-kind";
  const auto refused = h.factory().make(unknown, h.secret());
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == certsteward::domain::ErrorCode::failed_precondition);

  if (const auto lacking = h.incomplete()) {
    const auto incomplete = h.factory().make(lacking->first, h.secret());
    REQUIRE_FALSE(incomplete.ok());
    CHECK(incomplete.error().code == certsteward::domain::ErrorCode::invalid_argument);
    CHECK(incomplete.error().message.find(lacking->second) != std::string::npos);
  }
}
