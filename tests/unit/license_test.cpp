// Licence states, the cap, and the status view.
#include <doctest/doctest.h>

#include <certsteward/domain/license.hpp>

using namespace certsteward::domain;
using namespace std::chrono_literals;

namespace {

const Timestamp kExp = Timestamp{std::chrono::days{20000}};

License lic(std::optional<std::int64_t> limit) {
  License l;
  l.plan_name = "Enterprise 50";
  l.cert_limit = limit;
  l.expires_at = kExp;
  l.license_key = "CSLK-1234567890-ABCDEFGH";
  l.activated_at = kExp - std::chrono::days{365};
  return l;
}

}  // namespace

TEST_CASE("license: the state follows the licence and the clock") {
  const struct {
    const char* name;
    std::optional<License> license;
    Timestamp now;
    LicenseState state;
    std::optional<std::int64_t> cap;
  } rows[] = {
      {"no licence is free with cap 1", std::nullopt, kExp, LicenseState::free, 1},
      {"before exp is enterprise with its cap", lic(50), kExp - 1s, LicenseState::enterprise, 50},
      {"cert_limit 0 is unlimited", lic(0), kExp - 1s, LicenseState::enterprise, std::nullopt},
      {"missing cert_limit is unlimited", lic(std::nullopt), kExp - 1s, LicenseState::enterprise,
       std::nullopt},
      {"at exp the grace period starts, cap kept", lic(50), kExp, LicenseState::grace, 50},
      {"6 days 23 h into grace keeps the cap", lic(50), kExp + std::chrono::days{7} - 1s,
       LicenseState::grace, 50},
      {"after 7 days of grace it is free again", lic(50), kExp + std::chrono::days{7},
       LicenseState::free, 1},
      {"an unlimited licence past grace is capped at 1", lic(0), kExp + std::chrono::days{8},
       LicenseState::free, 1},
  };
  for (const auto& r : rows) {
    CAPTURE(r.name);
    CHECK(licenseState(r.license, r.now) == r.state);
    CHECK(certificateCap(r.license, r.now) == r.cap);
  }
}

TEST_CASE("license: issuance is refused at the cap, never below it") {
  CHECK(checkIssuanceAllowed(std::nullopt, kExp, 0).ok());
  const auto refused = checkIssuanceAllowed(std::nullopt, kExp, 1);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::resource_exhausted);
  CHECK(refused.error().message.find("renewals continue") != std::string::npos);
  CHECK(checkIssuanceAllowed(lic(3), kExp - 1s, 2).ok());
  CHECK_FALSE(checkIssuanceAllowed(lic(3), kExp - 1s, 3).ok());
  CHECK(checkIssuanceAllowed(lic(0), kExp - 1s, 1'000'000).ok());
  CHECK_FALSE(checkIssuanceAllowed(lic(3), kExp + std::chrono::days{8}, 1).ok());
}

TEST_CASE("license: a renewed licence returns to enterprise") {
  std::optional<License> current = lic(10);
  const Timestamp now = kExp + std::chrono::days{10};
  CHECK(licenseState(current, now) == LicenseState::free);
  License renewed = lic(10);
  renewed.expires_at = now + std::chrono::days{365};
  REQUIRE(checkActivation(renewed, now).ok());
  current = renewed;
  CHECK(licenseState(current, now) == LicenseState::enterprise);
  CHECK(certificateCap(current, now) == 10);
}

TEST_CASE("license: activation refuses a licence expired more than 5 minutes ago") {
  License l = lic(10);
  CHECK(checkActivation(l, kExp + 5min).ok());
  CHECK_FALSE(checkActivation(l, kExp + 5min + 1ms).ok());
  l.cert_limit = -1;
  CHECK_FALSE(checkActivation(l, kExp - 1h).ok());
}

TEST_CASE("license: the status view") {
  const auto free = licenseStatusView(std::nullopt, kExp);
  CHECK_FALSE(free.valid);
  CHECK(free.plan == "free");
  CHECK(free.cert_limit == 1);
  CHECK_FALSE(free.in_grace_period);

  const auto ent = licenseStatusView(lic(0), kExp - 1h);
  CHECK(ent.valid);
  CHECK(ent.plan == "enterprise");
  CHECK(ent.plan_name == "Enterprise 50");
  CHECK(ent.cert_limit == 0);
  CHECK(ent.expires_at == kExp);
  CHECK(ent.license_key == "CSLK...EFGH");

  const auto grace = licenseStatusView(lic(50), kExp + std::chrono::days{2});
  CHECK(grace.valid);
  CHECK(grace.in_grace_period);
  CHECK(grace.cert_limit == 50);
  CHECK(grace.grace_remaining_seconds == 5 * 86400);

  const auto lapsed = licenseStatusView(lic(50), kExp + std::chrono::days{30});
  CHECK_FALSE(lapsed.valid);
  CHECK(lapsed.plan == "free");
  CHECK(lapsed.cert_limit == 1);
  CHECK(lapsed.expires_at == kExp);  // the owner still sees what lapsed
  CHECK(maskLicenseKey("short") == "*****");
}
