// CaProviderService in process: what GET /ca-providers lists is the issuer this instance was
// built with and the DNS providers its configuration allows; none when it has no issuer.
#include <doctest/doctest.h>

#include <certsteward/services/ca_provider_service.hpp>
#include <certsteward/testing/fakes.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

class DescribedIssuer : public testing::FakeIssuer {
 public:
  using FakeIssuer::FakeIssuer;
  ports::IssuerInfo described;
  ports::IssuerInfo info() const override { return described; }
};

Principal viewer() {
  User u;
  u.id = "viewer-1";
  u.username = "viewer";
  u.org_role = OrgRole::viewer;
  return Principal{u, "session-v"};
}

}  // namespace

TEST_CASE("ca providers: the built issuer with the configured DNS providers, for every member") {
  testing::ServiceFixture fx;
  DescribedIssuer issuer(fx.clock);
  issuer.described = {"acme", "ACME (RFC 8555)", {"dns-01"}, {"eab", "ari"}};
  testing::InMemoryDns dns({"rfc2136", "exec"});
  CaProviderService providers({issuer, dns}, fx.access);

  const auto listed = providers.list(viewer());
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 1);
  const auto& p = listed->front();
  CHECK(p.issuer.issuer_type == "acme");
  CHECK(p.issuer.challenges == std::vector<std::string>{"dns-01"});
  CHECK(p.issuer.features == std::vector<std::string>{"eab", "ari"});
  REQUIRE(p.dns_providers.size() == 2);
  CHECK(p.dns_providers[0].name == "rfc2136");
  CHECK(p.available);
}

TEST_CASE("ca providers: unavailable without a DNS provider, and none without an issuer") {
  testing::ServiceFixture fx;
  DescribedIssuer issuer(fx.clock);
  issuer.described = {"acme", "ACME (RFC 8555)", {"dns-01"}, {}};
  testing::InMemoryDns none(std::vector<std::string>{});
  CaProviderService withoutDns({issuer, none}, fx.access);
  const auto listed = withoutDns.list(fx.owner());
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 1);
  CHECK(listed->front().dns_providers.empty());
  CHECK_FALSE(listed->front().available);

  DescribedIssuer nothing(fx.clock);  // a build without an issuer: empty issuer_type
  CaProviderService noIssuer({nothing, none}, fx.access);
  const auto empty = noIssuer.list(fx.owner());
  REQUIRE(empty.ok());
  CHECK(empty->empty());
}
