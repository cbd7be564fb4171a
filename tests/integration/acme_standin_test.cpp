// The ACME issuer against the extensions Pebble 2.4 lacks, served by a stand-in proxy in front of
// the real Pebble (tests/support/acme_standin_proxy.py), which checks every request as the specs
// say: a profile from the directory's meta.profiles sent in newOrder and an unknown one refused
// (draft-ietf-acme-profiles); a renewal naming the certificate it replaces by its RFC 9773
// identifier, and a `replaces` that names another account's certificate refused; a rateLimited
// answer with its Retry-After; the renewal window asked again with the CA's Retry-After. DNS-01
// through the shared bind9, as for Pebble itself.
#include <doctest/doctest.h>

#include <certsteward/adapters/acme/acme_issuer.hpp>
#include <certsteward/adapters/acme/ari.hpp>
#include "integration/acme_fixture.hpp"
#include "support/acme_standin_proxy.hpp"

using namespace certsteward;
using namespace std::chrono_literals;
using adapters::acme::AcmeIssuer;
using testing::AcmeStandInProxy;
using namespace testing::acme_world;

namespace {

AcmeStandInProxy& proxy() {
  static AcmeStandInProxy server(pebble());
  REQUIRE_MESSAGE(server.available(), server.reason());
  return server;
}

adapters::acme::AcmeSettings proxied() {
  auto s = settings(pebble());
  s.ca_bundle = proxy().caFile();  // every URL the client is given is the proxy's
  return s;
}

domain::AcmeAccount registeredThroughProxy(AcmeIssuer& issuer, const std::string& id) {
  domain::AcmeAccount a = account(pebble());
  a.id = id;
  a.directory_url = proxy().directoryUrl();
  auto state = issuer.registerAccount(a);
  REQUIRE_MESSAGE(state.ok(), (state.ok() ? "" : state.error().message));
  a.account_url = state->account_url;
  a.key_sealed = state->key_sealed;
  a.is_registered = true;
  return a;
}

std::string violationsText() {
  std::string out;
  for (const auto& v : proxy().violations())
    out += v + "\n";
  return out;
}

}  // namespace

TEST_CASE("acme stand-in: profiles and replaces are sent as the CA lists and issued them") {
  REQUIRE(proxy().control("reset", "{}"));
  AcmeIssuer issuer(box(), proxied());
  const auto meta = issuer.readDirectory(proxy().directoryUrl(), proxy().caPem());
  REQUIRE_MESSAGE(meta.ok(), (meta.ok() ? "" : meta.error().message));
  REQUIRE(meta->profiles.size() == 3);
  auto a = registeredThroughProxy(issuer, "0123456789abcdef0000aaaa");
  ExampleZone dns(tsig());

  ports::IssueRequest request{a, {"profiled.example.test"}, domain::KeyType::ecdsa_p256};
  request.profile = "tlsserver";
  auto first = issuer.issue(request, dns);
  REQUIRE_MESSAGE(first.ok(), (first.ok() ? "" : first.error().message));
  CHECK_FALSE(first->replaced);
  CHECK(first->suggested_renewal_at.has_value());  // the proxy offers renewalInfo

  // The renewal names the certificate it replaces; the CA accepts it.
  ports::IssueRequest renewal = request;
  renewal.replaces_certificate_pem = first->certificate_pem;
  auto second = issuer.issue(renewal, dns);
  REQUIRE_MESSAGE(second.ok(), (second.ok() ? "" : second.error().message));
  CHECK(second->replaced);
  const auto orders = proxy().orders();
  REQUIRE(orders.size() == 2);
  CHECK(orders[0].at("profile") == "tlsserver");
  CHECK(orders[1].at("profile") == "tlsserver");
  const auto id = adapters::acme::ariCertId(first->certificate_pem);
  REQUIRE(id.ok());
  CHECK(orders[1].at("replaces") == boost::json::value(*id));
  CHECK_MESSAGE(proxy().violations().empty(), violationsText());

  // A profile the CA does not list is refused by it (invalidProfile), named.
  ports::IssueRequest unknown = request;
  unknown.names = {"unknown-profile.example.test"};
  unknown.profile = "forever";
  auto refused = issuer.issue(unknown, dns);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().reason == "invalidProfile");
}

TEST_CASE("acme stand-in: a replaces the CA refuses is dropped once, and the order goes through") {
  REQUIRE(proxy().control("reset", "{}"));
  AcmeIssuer issuer(box(), proxied());
  auto owner = registeredThroughProxy(issuer, "0123456789abcdef0000bbbb");
  auto other = registeredThroughProxy(issuer, "0123456789abcdef0000cccc");
  ExampleZone dns(tsig());
  auto first = issuer.issue({owner, {"owned.example.test"}, domain::KeyType::ecdsa_p256}, dns);
  REQUIRE_MESSAGE(first.ok(), (first.ok() ? "" : first.error().message));
  // Another account names it: the CA refuses the replacement; the client orders without it.
  ports::IssueRequest theirs{other, {"owned.example.test"}, domain::KeyType::ecdsa_p256};
  theirs.replaces_certificate_pem = first->certificate_pem;
  auto second = issuer.issue(theirs, dns);
  REQUIRE_MESSAGE(second.ok(), (second.ok() ? "" : second.error().message));
  CHECK_FALSE(second->replaced);
  const auto violations = proxy().violations();
  REQUIRE(violations.size() == 1);  // the stand-in saw the wrong replaces, as a CA would
  CHECK(violations[0].find("replaces") != std::string::npos);
}

TEST_CASE("acme stand-in: rateLimited with Retry-After, and the renewal window asked again") {
  REQUIRE(proxy().control("reset", "{}"));
  AcmeIssuer issuer(box(), proxied());
  auto a = registeredThroughProxy(issuer, "0123456789abcdef0000dddd");
  ExampleZone dns(tsig());
  REQUIRE(proxy().control("rate-limit", R"({"count":1,"retry_after_seconds":3600})"));
  ports::IssueReport report;
  ports::IssueRequest request{a, {"limited.example.test"}, domain::KeyType::ecdsa_p256, nullptr,
                              &report};
  auto limited = issuer.issue(request, dns);
  REQUIRE_FALSE(limited.ok());
  CHECK(limited.error().code == domain::ErrorCode::resource_exhausted);
  CHECK(report.rate_limited);
  REQUIRE(report.retry_after.has_value());
  CHECK(*report.retry_after > 3500s);
  CHECK(*report.retry_after <= 3600s);

  // The limit spent: issued, then its window asked again with the CA's Retry-After.
  auto issued = issuer.issue(request, dns);
  REQUIRE_MESSAGE(issued.ok(), (issued.ok() ? "" : issued.error().message));
  REQUIRE(proxy().control("renewal-window",
                          R"({"start":"2030-03-01T00:00:00Z","end":"2030-03-02T00:00:00Z",)"
                          R"("explanation_url":"https://ca.test/why","retry_after_seconds":7200})"));
  auto window = issuer.renewalInfo(a, issued->certificate_pem);
  REQUIRE_MESSAGE(window.ok(), (window.ok() ? "" : window.error().message));
  CHECK(window->window_start == *domain::parseTimestamp("2030-03-01T00:00:00Z"));
  CHECK(window->explanation_url == "https://ca.test/why");
  REQUIRE(window->retry_after.has_value());
  const auto wait = *window->retry_after - std::chrono::time_point_cast<domain::Duration>(
                                               std::chrono::system_clock::now());
  CHECK(wait > 7000s);
  CHECK(wait <= 7200s);
  CHECK_MESSAGE(proxy().violations().empty(), violationsText());
}
