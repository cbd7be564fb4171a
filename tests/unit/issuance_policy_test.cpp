// A project's issuance policy (every rule, table-driven), the SC-081 lifetime schedule, IP
// identifiers in certificates, and renewal timing as a fraction of the lifetime.
#include <doctest/doctest.h>

#include <functional>

#include <certsteward/domain/issuance_policy.hpp>

using namespace certsteward::domain;
using namespace std::chrono_literals;

namespace {

Timestamp at(const char* text) {
  return *parseTimestamp(text);
}

Certificate named(std::vector<std::string> names, KeyType key = KeyType::ecdsa_p256) {
  Certificate c;
  c.id = "c1";
  c.project_id = "p";
  c.common_name = names.front();
  c.sans = std::move(names);
  c.key_type = key;
  c.challenge = ChallengeType::http_01;
  return c;
}

std::vector<std::string> rulesOf(const std::vector<PolicyViolation>& violations) {
  std::vector<std::string> out;
  for (const auto& v : violations)
    out.push_back(v.rule);
  return out;
}

}  // namespace

TEST_CASE("issuance policy: each rule judges the certificate it is meant for") {
  IssuancePolicy strict;
  strict.allowed_key_types = {KeyType::ecdsa_p256, KeyType::rsa_3072};
  strict.allowed_suffixes = {"example.com", "internal"};
  strict.allow_wildcards = false;
  strict.allow_ip_addresses = false;
  strict.allowed_ca_provider_ids = {"le"};
  struct Row {
    const char* what;
    Certificate cert;
    std::vector<Id> providers;
    std::vector<std::string> rules;  // broken, in the order they are reported
  };
  const Row rows[] = {
      {"inside every rule", named({"www.example.com", "api.internal"}), {"le"}, {}},
      {"the suffix itself", named({"example.com"}), {"le"}, {}},
      {"a key type not allowed",
       named({"www.example.com"}, KeyType::rsa_2048),
       {"le"},
       {"allowed_key_types"}},
      {"a name under no suffix", named({"www.example.org"}), {"le"}, {"allowed_suffixes"}},
      {"a name that only ends like a suffix",
       named({"badexample.com"}),
       {"le"},
       {"allowed_suffixes"}},
      {"a wildcard", named({"*.example.com"}), {"le"}, {"allow_wildcards"}},
      {"an IP address", named({"192.0.2.7"}), {"le"}, {"allow_ip_addresses"}},
      {"an IPv6 address", named({"2001:db8::7"}), {"le"}, {"allow_ip_addresses"}},
      {"a CA provider not allowed",
       named({"www.example.com"}),
       {"le", "zerossl"},
       {"allowed_ca_provider_ids"}},
      {"an account with no provider",
       named({"www.example.com"}),
       {""},
       {"allowed_ca_provider_ids"}},
      {"everything at once",
       named({"*.example.org", "192.0.2.1"}, KeyType::rsa_4096),
       {"other"},
       {"allowed_key_types", "allowed_suffixes", "allow_wildcards", "allow_ip_addresses",
        "allowed_ca_provider_ids"}},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    const auto violations = policyViolations(row.cert, row.providers, strict);
    CHECK(rulesOf(violations) == row.rules);
    for (const auto& v : violations)
      CHECK_FALSE(v.message.empty());
  }
  // The default policy allows everything.
  for (const auto& row : rows) {
    CAPTURE(row.what);
    CHECK(policyViolations(row.cert, row.providers, IssuancePolicy{}).empty());
  }
}

TEST_CASE("issuance policy: a violation is a 422 naming each rule and what broke it") {
  const auto e = policyError({{"allowed_key_types", "key type rsa_2048 is not allowed"},
                              {"allow_wildcards", "wildcard names are not allowed: *.a.com"}});
  CHECK(e.code == ErrorCode::invalid_argument);
  CHECK(e.reason == kPolicyViolation);
  CHECK(e.references ==
        std::vector<std::string>{"allowed_key_types: key type rsa_2048 is not allowed",
                                 "allow_wildcards: wildcard names are not allowed: *.a.com"});
  CHECK(e.message.find("rsa_2048") != std::string::npos);
  CHECK(e.message.find("*.a.com") != std::string::npos);
}

TEST_CASE("issuance policy: the longest lifetime is judged on what the CA issued") {
  IssuancePolicy policy;
  const auto from = at("2026-11-27T00:00:00Z");
  CHECK(lifetimeViolations(from, from + std::chrono::days{400}, policy).empty());  // no limit
  policy.max_lifetime_days = 90;
  CHECK(lifetimeViolations(from, from + std::chrono::days{90}, policy).empty());
  const auto over = lifetimeViolations(from, from + std::chrono::days{91}, policy);
  REQUIRE(over.size() == 1);
  CHECK(over[0].rule == "max_lifetime_days");
  CHECK(over[0].message.find("91 days") != std::string::npos);
}

TEST_CASE("issuance policy: SC-081 allows 398, 200, 100, then 47 days by the issue date") {
  const struct {
    const char* issued;
    int days;
  } rows[] = {{"2026-03-14T23:59:59Z", 398}, {"2026-03-15T00:00:00Z", 200},
              {"2027-03-14T12:00:00Z", 200}, {"2027-03-15T00:00:00Z", 100},
              {"2029-03-14T00:00:00Z", 100}, {"2029-03-15T00:00:00Z", 47},
              {"2035-01-01T00:00:00Z", 47}};
  for (const auto& r : rows) {
    CAPTURE(r.issued);
    const auto from = at(r.issued);
    CHECK(sc081MaxLifetime(from) == std::chrono::days{r.days});
    CHECK_FALSE(exceedsSc081(from, from + std::chrono::days{r.days}));
    CHECK(exceedsSc081(from, from + std::chrono::days{r.days} + 1s));
  }
  // Let's Encrypt's lifetimes today are inside it.
  CHECK_FALSE(exceedsSc081(at("2026-11-27T00:00:00Z"), at("2027-02-25T00:00:00Z")));  // 90 d
}

TEST_CASE("issuance policy: the settings' own rules, each naming its field") {
  const struct {
    const char* what;
    std::function<void(ProjectIssuance&)> change;
    const char* field;  // nullptr: valid
  } rows[] = {
      {"the defaults", [](ProjectIssuance&) {}, nullptr},
      {"a top-level suffix", [](ProjectIssuance& i) { i.policy.allowed_suffixes = {"internal"}; },
       nullptr},
      {"a key type twice",
       [](ProjectIssuance& i) {
         i.policy.allowed_key_types = {KeyType::rsa_2048, KeyType::rsa_2048};
       },
       "policy.allowed_key_types"},
      {"a wildcard suffix",
       [](ProjectIssuance& i) { i.policy.allowed_suffixes = {"*.example.com"}; },
       "policy.allowed_suffixes"},
      {"an upper-case suffix",
       [](ProjectIssuance& i) { i.policy.allowed_suffixes = {"Example.com"}; },
       "policy.allowed_suffixes"},
      {"101 suffixes",
       [](ProjectIssuance& i) { i.policy.allowed_suffixes.assign(101, "example.com"); },
       "policy.allowed_suffixes"},
      {"a negative lifetime", [](ProjectIssuance& i) { i.policy.max_lifetime_days = -1; },
       "policy.max_lifetime_days"},
      {"ten years and a day", [](ProjectIssuance& i) { i.policy.max_lifetime_days = 3651; },
       "policy.max_lifetime_days"},
      {"an empty provider id", [](ProjectIssuance& i) { i.policy.allowed_ca_provider_ids = {""}; },
       "policy.allowed_ca_provider_ids"},
      {"six default accounts",
       [](ProjectIssuance& i) { i.defaults.acme_account_ids = {"a", "b", "c", "d", "e", "f"}; },
       "defaults.acme_account_ids"},
      {"a default account twice",
       [](ProjectIssuance& i) {
         i.defaults.acme_account_ids = {"a", "a"};
       },
       "defaults.acme_account_ids"},
      {"a default profile with a space",
       [](ProjectIssuance& i) { i.defaults.profile = "short lived"; }, "defaults.profile"},
      {"a default chain with a control character",
       [](ProjectIssuance& i) { i.defaults.preferred_chain = "ISRG\nRoot"; },
       "defaults.preferred_chain"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    ProjectIssuance issuance;
    row.change(issuance);
    const auto checked = validateProjectIssuance(issuance);
    if (row.field == nullptr) {
      CHECK(checked.ok());
    } else {
      REQUIRE_FALSE(checked.ok());
      CHECK(checked.error().reason == kInvalidField);
      REQUIRE(checked.error().references.size() == 1);
      CHECK(checked.error().references[0] == row.field);
      CHECK(checked.error().message.starts_with(row.field));
    }
  }
}

TEST_CASE("certificates: IP addresses in their usual form, proven over HTTP-01 only") {
  const struct {
    const char* name;
    bool ip;
  } forms[] = {
      {"192.0.2.1", true},         {"2001:db8::1", true},      {"::1", true},
      {"192.0.2.01", false},       {"2001:DB8::1", false},     {"2001:db8:0:0:0:0:0:1", false},
      {"::ffff:192.0.2.1", false}, {"www.example.com", false}, {"1.2.3", false}};
  for (const auto& f : forms) {
    CAPTURE(f.name);
    CHECK(isIpIdentifier(f.name) == f.ip);
  }
  auto c = named({"192.0.2.1", "www.example.com"});
  CHECK(validateNewCertificate(c).ok());
  c.challenge = ChallengeType::dns_01;
  auto refused = validateNewCertificate(c);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().references == std::vector<std::string>{"challenge"});
  auto odd = named({"192.0.2.01"});
  CHECK(validateNewCertificate(odd).error().message.find("192.0.2.01") != std::string::npos);
  auto v6 = named({"2001:db8::1"});
  CHECK(validateNewCertificate(v6).ok());
}

TEST_CASE("certificates: renewal at a fraction of the lifetime, or days before expiry") {
  const auto from = at("2026-11-27T00:00:00Z");
  const struct {
    const char* what;
    int days;
    double fraction;
    int lifetimeDays;
    Duration before;  // expires_at - next_renewal_at
  } rows[] = {
      {"a 6-day certificate renews after 4 days", 30, 1.0 / 3, 6, std::chrono::days{2}},
      {"a 90-day one at 30 days left", 30, 1.0 / 3, 90, std::chrono::days{30}},
      {"a 45-day one at 15 days left", 30, 1.0 / 3, 45, std::chrono::days{15}},
      {"a half-way fraction", 30, 0.5, 90, std::chrono::days{45}},
      {"days when no fraction", 30, 0, 90, std::chrono::days{30}},
      {"days on a long certificate", 20, 0, 365, std::chrono::days{20}},
      {"days no shorter than the lifetime fall back to a third", 30, 0, 6, std::chrono::days{2}},
      {"days equal to the lifetime too", 30, 0, 30, std::chrono::days{10}},
  };
  for (const auto& r : rows) {
    CAPTURE(r.what);
    Certificate c;
    c.renewal_threshold_days = r.days;
    c.renew_at_fraction = r.fraction;
    const auto expires = from + std::chrono::days{r.lifetimeDays};
    const auto when = renewalTimeFor(c, from, expires);
    CHECK(std::chrono::abs(expires - when - r.before) < 1s);
  }
  // Through the table: issued with its not-before.
  Certificate c = named({"www.example.com"});
  c.renew_at_fraction = 1.0 / 3;
  CertificateContext ctx{from + 1h, "", from + std::chrono::days{6}, {}, false, {}};
  ctx.new_not_before = from;
  REQUIRE(applyCertificateEvent(c, CertificateEvent::issued, ctx).ok());
  CHECK(std::chrono::abs(*c.next_renewal_at - (from + std::chrono::days{4})) < 1s);
  // The fraction's range.
  for (double bad : {-0.1, 0.001, 1.0, 1.5}) {
    CAPTURE(bad);
    c.renew_at_fraction = bad;
    auto checked = validateNewCertificate(c);
    REQUIRE_FALSE(checked.ok());
    CHECK(checked.error().references == std::vector<std::string>{"renew_at_fraction"});
  }
}
