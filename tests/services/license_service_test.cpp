// LicenseService in process, with the shared verifier of known keys: only the owner
// activates; a key that does not verify, or expired more than 5 minutes ago, changes nothing;
// a valid key lifts the free plan's cap of one certificate, and the grace period follows expiry.
#include <doctest/doctest.h>

#include <map>

#include <certsteward/services/license_service.hpp>
#include <certsteward/testing/fakes.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;
using namespace std::chrono_literals;

namespace {

struct LicenseFixture : testing::ServiceFixture {
  testing::KnownLicenseKeys verifier;
  LicenseService license{store.license(),      verifier, clock, work, access, audit,
                         &store.certificates()};
  LicenseFixture() {
    License enterprise;
    enterprise.plan_name = "Enterprise";
    enterprise.cert_limit = 50;
    enterprise.expires_at = clock.now() + std::chrono::days{365};
    enterprise.license_key = "good-key";
    verifier.keys["good-key"] = enterprise;
    License old = enterprise;
    old.expires_at = clock.now() - 10min;
    old.license_key = "expired-key";
    verifier.keys["expired-key"] = old;
  }
};

}  // namespace

TEST_CASE("licence: only the owner activates, and a bad or expired key changes nothing") {
  LicenseFixture fx;
  User admin;
  admin.id = "admin-1";
  admin.username = "admin";
  admin.org_role = OrgRole::admin;
  CHECK(fx.license.activate(Principal{admin, "s"}, fx.ctx(), "good-key").error().code ==
        ErrorCode::permission_denied);
  CHECK(fx.license.activate(fx.owner(), fx.ctx(), "forged-key").error().code ==
        ErrorCode::invalid_argument);
  CHECK(fx.license.activate(fx.owner(), fx.ctx(), "expired-key").error().code ==
        ErrorCode::invalid_argument);
  CHECK_FALSE(fx.store.license().get()->has_value());
  const auto status = fx.license.status(fx.owner());
  REQUIRE(status.ok());
  CHECK(status->plan == "free");
  CHECK(fx.audited("license.activate").empty());
}

TEST_CASE("licence: an activated key lifts the free cap and is audited, grace follows expiry") {
  LicenseFixture fx;
  fx.project("p1");
  fx.servedZone("p1");
  CertificateRequest request;
  request.common_name = "a.example.com";
  REQUIRE(fx.certificates.create(fx.owner(), fx.ctx(), "p1", request).ok());
  request.common_name = "b.example.com";
  CHECK(fx.certificates.create(fx.owner(), fx.ctx(), "p1", request).error().reason ==
        "LICENSE_LIMIT");

  CHECK(fx.license.status(fx.owner())->certificates_used == 1);  // the one the free plan allows
  auto activated = fx.license.activate(fx.owner(), fx.ctx(), "good-key");
  REQUIRE(activated.ok());
  CHECK(activated->valid);
  CHECK(activated->plan == "enterprise");
  CHECK(activated->cert_limit == 50);
  CHECK(fx.audited("license.activate").size() == 1);
  CHECK(fx.certificates.create(fx.owner(), fx.ctx(), "p1", request).ok());
  CHECK(fx.license.status(fx.owner())->certificates_used == 2);

  fx.clock.advance(std::chrono::days{366});  // a day past expiry: in the 7-day grace period
  auto grace = fx.license.status(fx.owner());
  REQUIRE(grace.ok());
  CHECK(grace->in_grace_period);
  CHECK(grace->plan == "enterprise");
  fx.clock.advance(std::chrono::days{7});
  CHECK(fx.license.status(fx.owner())->plan == "free");
}
