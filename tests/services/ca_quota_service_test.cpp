// CaQuotaService in process: the zone rate-limit report counts inside each limit's window, for
// every directory of the project's accounts, with configured or published limits; another
// project's refusal is shown without its words; tenancy as for every project read.
#include <doctest/doctest.h>

#include <certsteward/adapters/store/codec/settings_documents.hpp>
#include <certsteward/services/ca_quota_service.hpp>
#include <certsteward/testing/fake_public_suffixes.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;
using namespace std::chrono_literals;

namespace {

constexpr const char* kLetsEncrypt = "https://acme-v02.api.letsencrypt.org/directory";
constexpr const char* kPrivateCa = "https://ca.example/dir";

struct QuotaFixture : testing::ServiceFixture {
  testing::FakePublicSuffixes suffixes;
  CaQuotaService quotas{{store.zones(), store.acmeAccounts(), store.caActivity(), suffixes, clock},
                        access,
                        *parseQuotaLimits(std::string(kPrivateCa) + " certificates=10/1d")};
  int next = 0;

  void account(const Id& projectId, const std::string& directory) {
    AcmeAccount a;
    a.id = ids.next();
    a.project_id = projectId;
    a.name = "account " + std::to_string(next++);
    a.directory_url = directory;
    REQUIRE(store.acmeAccounts().create(a).ok());
  }
  Id zone(const Id& projectId, const std::string& domain) {
    Zone z;
    z.id = ids.next();
    z.project_id = projectId;
    z.domain = domain;
    z.dns_credential_id = "0123456789abcdef01234567";
    REQUIRE(store.zones().create(z).ok());
    return z.id;
  }
  void activity(const std::string& directory, const std::string& domain, CaActivityKind kind,
                Duration ago, const Id& projectId = "p1",
                std::optional<Timestamp> retryUntil = std::nullopt, std::string detail = {}) {
    CaActivity a;
    a.id = ids.next();
    a.directory_url = directory;
    a.registered_domain = domain;
    a.kind = kind;
    a.at = clock.now() - ago;
    a.project_id = projectId;
    a.retry_until = retryUntil;
    a.detail = std::move(detail);
    REQUIRE(store.caActivity().record(a).ok());
  }
};

const DirectoryQuota& directory(const ZoneQuotaReport& r, const std::string& url) {
  for (const auto& d : r.directories)
    if (d.directory_url == url) return d;
  FAIL("no report for " << url);
  return r.directories.front();
}

}  // namespace

TEST_CASE("ca quotas: the zone's registered domain counted in each window, per directory") {
  QuotaFixture fx;
  fx.project("p1");
  fx.account("p1", kLetsEncrypt);
  fx.account("p1", kLetsEncrypt);  // one directory, reported once
  fx.account("p1", kPrivateCa);
  const Id zoneId = fx.zone("p1", "shop.example.co.uk");
  using K = CaActivityKind;
  const std::string rd = "example.co.uk";
  for (auto ago : {1h, 30h, 6 * 24h})
    fx.activity(kLetsEncrypt, rd, K::certificate_issued, ago);
  fx.activity(kLetsEncrypt, rd, K::certificate_issued, 8 * 24h);  // outside the week
  fx.activity(kLetsEncrypt, rd, K::order_created, 1h);
  fx.activity(kLetsEncrypt, rd, K::order_created, 2h);
  fx.activity(kLetsEncrypt, rd, K::order_created, 4h);  // outside 3 h
  fx.activity(kLetsEncrypt, rd, K::validation_failed, 30min);
  fx.activity(kLetsEncrypt, "example.com", K::certificate_issued, 1h);  // another domain
  fx.activity(kPrivateCa, rd, K::certificate_issued, 2h);
  fx.activity(kPrivateCa, rd, K::certificate_issued, 30h);  // outside the configured day

  auto report = fx.quotas.forZone(fx.owner(), "p1", zoneId);
  REQUIRE(report.ok());
  CHECK(report->zone_id == zoneId);
  CHECK(report->domain == "shop.example.co.uk");
  CHECK(report->registered_domain == rd);
  CHECK(report->at == fx.clock.now());
  REQUIRE(report->directories.size() == 2);

  const auto& le = directory(*report, kLetsEncrypt);
  CHECK(le.limits_source == "published");
  CHECK(le.certificates.used == 3);
  CHECK(le.certificates.limit == QuotaLimit{50, std::chrono::days{7}});
  CHECK(le.orders.used == 2);
  CHECK(le.orders.limit == QuotaLimit{300, 3h});
  CHECK(le.failed_validations.used == 1);
  CHECK(le.failed_validations.limit == QuotaLimit{5, 1h});
  CHECK_FALSE(le.last_rate_limited.has_value());

  const auto& own = directory(*report, kPrivateCa);
  CHECK(own.limits_source == "configured");
  CHECK(own.certificates.used == 1);
  CHECK(own.certificates.limit == QuotaLimit{10, std::chrono::days{1}});
  CHECK(own.orders.limit.max == 0);  // not configured, none published: counted without maximum
}

TEST_CASE("ca quotas: a CA provider's published limits count unless acme.rate_limits names some") {
  QuotaFixture fx;
  adapters::codec::CaProvidersDocument document{fx.store.settings(), fx.clock};
  CaQuotaService quotas{{fx.store.zones(), fx.store.acmeAccounts(), fx.store.caActivity(),
                         fx.suffixes, fx.clock, &document},
                        fx.access,
                        *parseQuotaLimits(std::string(kPrivateCa) + " certificates=10/1d")};
  constexpr const char* kOther = "https://other-ca.example/dir";
  CaProviderList list;
  for (const auto& url :
       {std::string(kOther), std::string(kPrivateCa), std::string(kLetsEncrypt)}) {
    CaProvider p;
    p.id = "prov-" + std::to_string(list.providers.size());
    p.name = url;
    p.directory_url = url;
    p.rate_limits.certificates = {20, std::chrono::days{2}};  // orders not published
    list.providers.push_back(p);
  }
  REQUIRE(document.put(list).ok());
  fx.project("p1");
  fx.account("p1", kOther);
  fx.account("p1", kPrivateCa);
  fx.account("p1", kLetsEncrypt);
  const Id zoneId = fx.zone("p1", "shop.example.co.uk");
  auto report = quotas.forZone(fx.owner(), "p1", zoneId);
  REQUIRE(report.ok());
  const auto& other = directory(*report, kOther);
  CHECK(other.limits_source == "provider");
  CHECK(other.certificates.limit == QuotaLimit{20, std::chrono::days{2}});
  CHECK(other.orders.limit.max == 0);  // the provider publishes none: counted without maximum
  // The operator's entry wins over the provider's.
  CHECK(directory(*report, kPrivateCa).limits_source == "configured");
  CHECK(directory(*report, kPrivateCa).certificates.limit == QuotaLimit{10, std::chrono::days{1}});
  // Let's Encrypt: the provider's figure, the published ones for what it leaves out.
  const auto& le = directory(*report, kLetsEncrypt);
  CHECK(le.limits_source == "provider");
  CHECK(le.certificates.limit == QuotaLimit{20, std::chrono::days{2}});
  CHECK(le.orders.limit == QuotaLimit{300, 3h});
}

TEST_CASE("ca quotas: the last rateLimited answer, active until its Retry-After") {
  QuotaFixture fx;
  fx.project("p1");
  fx.project("p2");
  fx.account("p1", kLetsEncrypt);
  const Id zoneId = fx.zone("p1", "example.com");
  fx.activity(kLetsEncrypt, "example.com", CaActivityKind::rate_limited, 2h, "p1",
              fx.clock.now() - 1h, "too many new orders recently");
  auto report = fx.quotas.forZone(fx.owner(), "p1", zoneId);
  REQUIRE(report.ok());
  auto last = directory(*report, kLetsEncrypt).last_rate_limited;
  REQUIRE(last.has_value());
  CHECK_FALSE(last->active);  // its Retry-After has passed
  CHECK(last->detail == "too many new orders recently");
  CHECK(last->at == fx.clock.now() - 2h);

  // A newer refusal of another project's order for the same registered domain holds this
  // project's orders too; its words (the other project's names) are not shown.
  fx.activity(kLetsEncrypt, "example.com", CaActivityKind::rate_limited, 5min, "p2",
              fx.clock.now() + 55min,
              "too many certificates already issued for secret.example.com");
  report = fx.quotas.forZone(fx.owner(), "p1", zoneId);
  REQUIRE(report.ok());
  last = directory(*report, kLetsEncrypt).last_rate_limited;
  REQUIRE(last.has_value());
  CHECK(last->active);
  CHECK(last->retry_until == fx.clock.now() + 55min);
  CHECK(last->detail.find("secret") == std::string::npos);
  CHECK(last->detail.find("another project") != std::string::npos);
  fx.clock.advance(56min);
  report = fx.quotas.forZone(fx.owner(), "p1", zoneId);
  CHECK_FALSE(directory(*report, kLetsEncrypt).last_rate_limited->active);
}

TEST_CASE("ca quotas: read with the project viewer role, other tenants and unknown ids see 404") {
  QuotaFixture fx;
  fx.project("p1");
  fx.project("p2");
  fx.account("p1", kLetsEncrypt);
  const Id zoneId = fx.zone("p1", "example.com");
  const Id otherZone = fx.zone("p2", "example.org");
  const auto viewer = fx.member("p1", ProjectRole::viewer);
  auto seen = fx.quotas.forZone(viewer, "p1", zoneId);
  REQUIRE(seen.ok());
  CHECK(seen->directories.size() == 1);
  const auto outsider = fx.member("p2", ProjectRole::admin);
  CHECK(fx.quotas.forZone(outsider, "p1", zoneId).error().code == ErrorCode::not_found);
  CHECK(fx.quotas.forZone(fx.owner(), "p1", otherZone).error().code == ErrorCode::not_found);
  CHECK(fx.quotas.forZone(fx.owner(), "p1", "0123456789abcdef0123ffff").error().code ==
        ErrorCode::not_found);
  CHECK(fx.quotas.forZone(fx.owner(), "0123456789abcdef0123eeee", zoneId).error().code ==
        ErrorCode::not_found);
  // A project without ACME accounts has nothing to report yet.
  fx.project("p3");
  const Id lone = fx.zone("p3", "example.net");
  auto empty = fx.quotas.forZone(fx.owner(), "p3", lone);
  REQUIRE(empty.ok());
  CHECK(empty->directories.empty());
  CHECK(empty->registered_domain == "example.net");
}
