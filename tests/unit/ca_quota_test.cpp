// CA quotas: the published limits by directory, the `acme.rate_limits` syntax row by row, and
// registered domains from the Public Suffix List (libpsl).
#include <doctest/doctest.h>

#include <certsteward/adapters/runtime/psl_public_suffixes.hpp>
#include <certsteward/domain/ca_quota.hpp>

using namespace certsteward;
using namespace certsteward::domain;
using namespace std::chrono_literals;

namespace {
constexpr const char* kLetsEncrypt = "https://acme-v02.api.letsencrypt.org/directory";
constexpr const char* kStaging = "https://acme-staging-v02.api.letsencrypt.org/directory";
}  // namespace

TEST_CASE("ca quotas: Let's Encrypt's published limits, other directories counted without one") {
  const auto le = quotaLimitsFor(kLetsEncrypt, {});
  CHECK(le.source == "published");
  CHECK(le.certificates == QuotaLimit{50, std::chrono::days{7}});
  CHECK(le.orders == QuotaLimit{300, 3h});
  CHECK(le.failed_validations == QuotaLimit{5, 1h});
  const auto staging = quotaLimitsFor(kStaging, {});
  CHECK(staging.source == "published");
  CHECK(staging.certificates.max == 30000);
  const auto other = quotaLimitsFor("https://ca.example/dir", {});
  CHECK(other.source == "unknown");
  CHECK(other.certificates == QuotaLimit{0, std::chrono::days{7}});
  CHECK(other.orders == QuotaLimit{0, 3h});
  CHECK(other.failed_validations == QuotaLimit{0, 1h});
}

TEST_CASE("ca quotas: acme.rate_limits entries replace the defaults of their directory only") {
  auto parsed = parseQuotaLimits(std::string(kLetsEncrypt) +
                                 " certificates=100/7d ; https://ca.example/dir orders=20/1h "
                                 "failed_validations=3/30m");
  REQUIRE(parsed.ok());
  REQUIRE(parsed->size() == 2);
  const auto le = quotaLimitsFor(kLetsEncrypt, *parsed);
  CHECK(le.source == "configured");
  CHECK(le.certificates == QuotaLimit{100, std::chrono::days{7}});
  CHECK(le.orders == QuotaLimit{300, 3h});  // not named: the published default stays
  const auto other = quotaLimitsFor("https://ca.example/dir", *parsed);
  CHECK(other.orders == QuotaLimit{20, 1h});
  CHECK(other.failed_validations == QuotaLimit{3, 30min});
  CHECK(other.certificates.max == 0);
  CHECK(quotaLimitsFor(kStaging, *parsed).source == "published");
  CHECK(parseQuotaLimits("")->empty());
  CHECK(parseQuotaLimits(" ; ")->empty());
}

TEST_CASE("ca quotas: malformed acme.rate_limits entries are refused, naming the part") {
  const struct {
    const char* text;
    const char* names;
  } rows[] = {
      {"ca.example/dir certificates=5/7d", "ca.example/dir"},
      {"https://ca.example/dir", "sets no limit"},
      {"https://ca.example/dir certificates=5", "certificates=5"},
      {"https://ca.example/dir certificates=0/7d", "certificates=0/7d"},
      {"https://ca.example/dir certificates=-1/7d", "certificates=-1/7d"},
      {"https://ca.example/dir certificates=5/31d", "certificates=5/31d"},
      {"https://ca.example/dir certificates=5/0s", "certificates=5/0s"},
      {"https://ca.example/dir certificates=5/week", "certificates=5/week"},
      {"https://ca.example/dir certificates=99999999999/7d", "certificates=99999999999/7d"},
      {"https://ca.example/dir renewals=5/7d", "renewals=5/7d"},
      {"https://ca.example/dir orders=5/1h; https://ca.example/dir orders=6/1h", "listed twice"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.text);
    auto parsed = parseQuotaLimits(row.text);
    REQUIRE_FALSE(parsed.ok());
    CHECK(parsed.error().code == ErrorCode::invalid_argument);
    CHECK(parsed.error().message.find(row.names) != std::string::npos);
  }
}

TEST_CASE("ca quotas: activity kinds have one wire name each") {
  for (const auto kind : {CaActivityKind::order_created, CaActivityKind::certificate_issued,
                          CaActivityKind::validation_failed, CaActivityKind::rate_limited}) {
    CHECK(parseCaActivityKind(nameOf(kind)) == kind);
  }
  CHECK_FALSE(parseCaActivityKind("orders").has_value());
}

TEST_CASE("public suffixes: the registered domain as CAs compute it") {
  adapters::runtime::PslPublicSuffixes suffixes;
  const struct {
    const char* name;
    const char* registered;
  } rows[] = {
      {"www.example.com", "example.com"},
      {"example.com", "example.com"},
      {"new.blog.example.co.uk", "example.co.uk"},
      {"*.api.example.com", "example.com"},
      {"WWW.Example.COM.", "example.com"},
      {"alice.github.io", "alice.github.io"},  // a private suffix: each user is a domain
      {"co.uk", "co.uk"},                      // a public suffix has no registrable part
      {"a.b.example.test", "example.test"},    // unknown TLDs: the last two labels
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    CHECK(suffixes.registeredDomain(row.name) == row.registered);
  }
}
