// The certificate life cycle table and the renewal-timing rules.
#include <doctest/doctest.h>

#include <functional>

#include <certsteward/domain/certificate.hpp>

using namespace certsteward::domain;
using namespace std::chrono_literals;

namespace {

const Timestamp kNow = Timestamp{std::chrono::days{20000}};

Certificate certIn(CertificateStatus status) {
  Certificate c;
  c.id = "0123456789abcdef01234567";
  c.project_id = "p";
  c.common_name = "www.example.com";
  c.sans = {"www.example.com"};
  c.status = status;
  if (status != CertificateStatus::issuing) {
    c.expires_at = kNow + std::chrono::days{60};
    c.next_renewal_at = kNow + std::chrono::days{30};
  }
  return c;
}

}  // namespace

TEST_CASE("certificate: every transition of the table") {
  struct Row {
    const char* name;
    std::function<Certificate()> start;
    CertificateEvent event;
    CertificateContext context;
    bool ok;
    CertificateStatus expected;
    std::function<void(const Certificate&)> check;
    std::optional<EventKind> raised;
  };
  const auto noCheck = [](const Certificate&) {};
  CertificateContext issuedCtx{kNow, "", kNow + std::chrono::days{90}, std::nullopt, true, {}};
  CertificateContext errorCtx{kNow, "dns timeout", std::nullopt, std::nullopt, false, {}};
  CertificateContext plain{kNow, "", std::nullopt, std::nullopt, false, {}};
  std::vector<Row> rows{
      {"issuance success makes it active with renewal scheduled and raises cert.issued",
       [] { return certIn(CertificateStatus::issuing); }, CertificateEvent::issued, issuedCtx, true,
       CertificateStatus::active,
       [](const Certificate& c) {
         CHECK(c.expires_at == kNow + std::chrono::days{90});
         CHECK(c.next_renewal_at == kNow + std::chrono::days{60});
         CHECK(c.issued_at == kNow);
         CHECK(c.distribution_pending);
         CHECK(c.distribution_pending_since == kNow);
         CHECK(c.last_error.empty());
       },
       EventKind::cert_issued},
      {"issuance success without a new expiry is refused",
       [] { return certIn(CertificateStatus::issuing); }, CertificateEvent::issued, plain, false,
       CertificateStatus::issuing, noCheck, std::nullopt},
      {"a failed issuance attempt keeps issuing with the error",
       [] { return certIn(CertificateStatus::issuing); }, CertificateEvent::attempt_failed,
       errorCtx, true, CertificateStatus::issuing,
       [](const Certificate& c) { CHECK(c.last_error == "dns timeout"); }, std::nullopt},
      {"exhausted issuance stays issuing with the error",
       [] { return certIn(CertificateStatus::issuing); }, CertificateEvent::attempts_exhausted,
       errorCtx, true, CertificateStatus::issuing,
       [](const Certificate& c) { CHECK(c.last_error == "dns timeout"); }, std::nullopt},
      {"the sweep moves a due certificate to renewal_pending",
       [] {
         auto c = certIn(CertificateStatus::active);
         c.next_renewal_at = kNow - 1s;
         return c;
       },
       CertificateEvent::scheduled_renew, plain, true, CertificateStatus::renewal_pending, noCheck,
       std::nullopt},
      {"the sweep leaves a certificate that is not due",
       [] { return certIn(CertificateStatus::active); }, CertificateEvent::scheduled_renew, plain,
       false, CertificateStatus::active, noCheck, std::nullopt},
      {"the sweep leaves a certificate without auto_renew",
       [] {
         auto c = certIn(CertificateStatus::active);
         c.next_renewal_at = kNow - 1s;
         c.auto_renew = false;
         return c;
       },
       CertificateEvent::scheduled_renew, plain, false, CertificateStatus::active, noCheck,
       std::nullopt},
      {"the sweep retries a failed renewal after the cool-off",
       [] {
         auto c = certIn(CertificateStatus::renewal_failed);
         c.next_renewal_at = kNow - 1s;
         return c;
       },
       CertificateEvent::scheduled_renew, plain, true, CertificateStatus::renewal_pending, noCheck,
       std::nullopt},
      {"manual renew of an active certificate", [] { return certIn(CertificateStatus::active); },
       CertificateEvent::manual_renew, plain, true, CertificateStatus::renewal_pending, noCheck,
       std::nullopt},
      {"manual renew of a failed renewal", [] { return certIn(CertificateStatus::renewal_failed); },
       CertificateEvent::manual_renew, plain, true, CertificateStatus::renewal_pending, noCheck,
       std::nullopt},
      {"manual renew while issuing is refused", [] { return certIn(CertificateStatus::issuing); },
       CertificateEvent::manual_renew, plain, false, CertificateStatus::issuing, noCheck,
       std::nullopt},
      {"manual renew while a renewal is queued is refused",
       [] { return certIn(CertificateStatus::renewal_pending); }, CertificateEvent::manual_renew,
       plain, false, CertificateStatus::renewal_pending, noCheck, std::nullopt},
      {"manual renew while a renewal runs is refused",
       [] { return certIn(CertificateStatus::renewal_in_progress); },
       CertificateEvent::manual_renew, plain, false, CertificateStatus::renewal_in_progress,
       noCheck, std::nullopt},
      {"a worker starting a renewal counts the attempt",
       [] { return certIn(CertificateStatus::renewal_pending); }, CertificateEvent::renewal_started,
       plain, true, CertificateStatus::renewal_in_progress,
       [](const Certificate& c) { CHECK(c.renewal_attempts == 1); }, std::nullopt},
      {"renewal success returns to active with new dates and a clean slate",
       [] {
         auto c = certIn(CertificateStatus::renewal_in_progress);
         c.renewal_attempts = 2;
         c.last_error = "old";
         return c;
       },
       CertificateEvent::renewed, issuedCtx, true, CertificateStatus::active,
       [](const Certificate& c) {
         CHECK(c.renewal_attempts == 0);
         CHECK(c.last_error.empty());
         CHECK(c.next_renewal_at == kNow + std::chrono::days{60});
       },
       EventKind::cert_renewed},
      {"a failed renewal attempt goes back to renewal_pending",
       [] { return certIn(CertificateStatus::renewal_in_progress); },
       CertificateEvent::attempt_failed, errorCtx, true, CertificateStatus::renewal_pending,
       [](const Certificate& c) { CHECK(c.last_error == "dns timeout"); }, std::nullopt},
      {"an exhausted renewal is renewal_failed, raises cert.renewal_failed, cools off 6 h",
       [] { return certIn(CertificateStatus::renewal_in_progress); },
       CertificateEvent::attempts_exhausted, errorCtx, true, CertificateStatus::renewal_failed,
       [](const Certificate& c) {
         CHECK(c.last_error == "dns timeout");
         CHECK(c.next_renewal_at == kNow + 6h);
       },
       EventKind::cert_renewal_failed},
      {"a renewal job that died while queued is renewal_failed",
       [] { return certIn(CertificateStatus::renewal_pending); },
       CertificateEvent::attempts_exhausted, errorCtx, true, CertificateStatus::renewal_failed,
       noCheck, EventKind::cert_renewal_failed},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    Certificate cert = row.start();
    auto result = applyCertificateEvent(cert, row.event, row.context);
    REQUIRE(result.ok() == row.ok);
    CHECK(cert.status == row.expected);
    if (row.ok) {
      CHECK(*result == row.raised);
      CHECK(cert.updated_at == kNow);
      row.check(cert);
    } else {
      CHECK(result.error().code == ErrorCode::failed_precondition);
    }
  }
}

TEST_CASE("certificate: an ARI window overrides the threshold for next_renewal_at") {
  Certificate c = certIn(CertificateStatus::issuing);
  CertificateContext ctx{kNow,  "", kNow + std::chrono::days{90}, kNow + std::chrono::days{70},
                         false, {}};
  REQUIRE(applyCertificateEvent(c, CertificateEvent::issued, ctx).ok());
  CHECK(c.next_renewal_at == kNow + std::chrono::days{70});
  CHECK_FALSE(c.distribution_pending);
}

TEST_CASE("certificate: a renewal window read again moves the renewal only earlier (RFC 9773)") {
  const struct {
    const char* what;
    Duration start, end;  // the window, from kNow
    double fraction;
    std::optional<Duration> renewal;  // next_renewal_at after, from kNow (planned: +30 days)
    bool moved;
  } rows[] = {
      {"a window after the planned renewal leaves it", std::chrono::days{40}, std::chrono::days{42},
       0.5, std::chrono::days{30}, false},
      {"a window around the planned renewal leaves it when the pick is later",
       std::chrono::days{29}, std::chrono::days{33}, 0.5, std::chrono::days{30}, false},
      {"a window around it moves it when the pick is earlier", std::chrono::days{29},
       std::chrono::days{33}, 0.1, std::chrono::days{29} + std::chrono::hours{9} + 36min, true},
      {"a window moved earlier (a CA revoking) takes the pick inside it", std::chrono::days{2},
       std::chrono::days{4}, 0.25, std::chrono::days{2} + std::chrono::hours{12}, true},
      {"a window already past renews at once", -std::chrono::days{3}, -std::chrono::days{1}, 0.5,
       Duration{0}, true},
      {"a window ending before it starts is ignored", std::chrono::days{4}, std::chrono::days{2},
       0.5, std::chrono::days{30}, false},
  };
  for (const auto& r : rows) {
    CAPTURE(r.what);
    Certificate c = certIn(CertificateStatus::active);
    CHECK(takeRenewalWindow(c, kNow + r.start, kNow + r.end, r.fraction, kNow) == r.moved);
    CHECK(c.next_renewal_at == kNow + *r.renewal);
  }
}

TEST_CASE("certificate: the renewal window is read again as the CA's Retry-After says, bounded") {
  const struct {
    const char* what;
    std::optional<Duration> retryAfter;
    bool failed;
    double jitter;
    Duration next;
  } rows[] = {
      {"six hours asked", std::chrono::hours{6}, false, 0, std::chrono::hours{6}},
      {"no Retry-After: six hours", std::nullopt, false, 0, std::chrono::hours{6}},
      {"a minute is stretched to an hour", std::chrono::minutes{1}, false, 0,
       std::chrono::hours{1}},
      {"a week is cut to a day", std::chrono::days{7}, false, 0, std::chrono::hours{24}},
      {"a failure: six hours", std::chrono::hours{1}, true, 0, std::chrono::hours{6}},
      {"jitter takes up to a tenth off", std::chrono::hours{10}, false, 0.5,
       std::chrono::hours{9} + std::chrono::minutes{30}},
  };
  for (const auto& r : rows) {
    CAPTURE(r.what);
    const std::optional<Timestamp> after =
        r.retryAfter ? std::optional<Timestamp>(kNow + *r.retryAfter) : std::nullopt;
    CHECK(nextRenewalInfoPoll(kNow, after, r.jitter, r.failed) == kNow + r.next);
  }
}

TEST_CASE("certificate: next_renewal_at is expires_at minus the threshold in days") {
  const struct {
    int days;
    Duration before;
  } rows[] = {
      {1, std::chrono::days{1}}, {30, std::chrono::days{30}}, {365, std::chrono::days{365}}};
  for (const auto& r : rows) {
    CHECK(renewalTime(kNow, r.days) == kNow - r.before);
  }
}

TEST_CASE("certificate: the renewal idempotency key is renew:<id>:<expires_at_unix>") {
  Certificate c = certIn(CertificateStatus::active);
  c.expires_at = fromUnixSeconds(1767225600);
  CHECK(renewalIdempotencyKey(c) == "renew:0123456789abcdef01234567:1767225600");
  c.expires_at = *c.expires_at + 999ms;  // sub-second parts do not change the key
  CHECK(renewalIdempotencyKey(c) == "renew:0123456789abcdef01234567:1767225600");
}

TEST_CASE("certificate: the failed-renewal rule of the spec (States, rule 2)") {
  Certificate active = certIn(CertificateStatus::active);
  active.next_renewal_at = kNow - 1s;
  CHECK(isFailedRenewal(active, kNow));
  active.next_renewal_at = kNow;
  CHECK_FALSE(isFailedRenewal(active, kNow));  // "past", not "at"
  Certificate failed = certIn(CertificateStatus::renewal_failed);
  failed.renewal_attempts = 0;
  CHECK_FALSE(isFailedRenewal(failed, kNow));
  failed.renewal_attempts = 3;
  CHECK(isFailedRenewal(failed, kNow));
  Certificate pending = certIn(CertificateStatus::renewal_pending);
  pending.next_renewal_at = kNow - 1h;
  CHECK_FALSE(isFailedRenewal(pending, kNow));
}

TEST_CASE("certificate: distribution_pending goes stale after more than 5 minutes") {
  Certificate c = certIn(CertificateStatus::active);
  setDistributionPending(c, true, kNow);
  CHECK_FALSE(isDistributionStale(c, kNow + 5min));
  CHECK(isDistributionStale(c, kNow + 5min + 1ms));
  setDistributionPending(c, false, kNow);
  CHECK_FALSE(c.distribution_pending_since);
  CHECK_FALSE(isDistributionStale(c, kNow + 1h));
}

TEST_CASE("certificate: expiring soon within 14 days of expiry") {
  Certificate c = certIn(CertificateStatus::active);
  c.expires_at = kNow + std::chrono::days{14};
  CHECK(isExpiringSoon(c, kNow));
  c.expires_at = kNow + std::chrono::days{15};
  CHECK_FALSE(isExpiringSoon(c, kNow));
  CHECK_FALSE(isExpiringSoon(certIn(CertificateStatus::issuing), kNow));
}

TEST_CASE("certificate: DNS names and request validation") {
  const struct {
    const char* name;
    bool ok;
  } names[] = {{"www.example.com", true},
               {"*.example.com", true},
               {"a.b", true},
               {"example", false},
               {"WWW.example.com", false},
               {"-a.example.com", false},
               {"a-.example.com", false},
               {"a..example.com", false},
               {"*.*.example.com", false},
               {"exa mple.com", false},
               {"", false},
               {"a.example.com.", false},
               {"xn--bcher-kva.example", true}};
  for (const auto& n : names) {
    CAPTURE(n.name);
    CHECK(isValidDnsName(n.name) == n.ok);
  }
  CHECK_FALSE(isValidDnsName(std::string(64, 'a') + ".com"));
  CHECK(isValidDnsName(std::string(63, 'a') + ".com"));

  Certificate c = certIn(CertificateStatus::issuing);
  CHECK(validateNewCertificate(c).ok());
  c.renewal_threshold_days = 0;
  CHECK(validateNewCertificate(c).error().code == ErrorCode::invalid_argument);
  c.renewal_threshold_days = 30;
  c.sans.push_back("bad name");
  CHECK(validateNewCertificate(c).error().message.find("sans") != std::string::npos);
  c.sans.pop_back();
  c.issuer_type = "msca";
  CHECK_FALSE(validateNewCertificate(c).ok());
}

TEST_CASE("ca failover: which outcomes hand an order to the next CA at once") {
  struct Row {
    CaOutcome outcome;
    bool atOnce;
  };
  const Row rows[] = {
      {CaOutcome::issued, false},      {CaOutcome::unreachable, true},
      {CaOutcome::rate_limited, true}, {CaOutcome::caa_refused, true},
      {CaOutcome::disabled, true},     {CaOutcome::refused, false},
  };
  for (const auto& row : rows) {
    CAPTURE(nameOf(row.outcome));
    CHECK(failsOverAtOnce(row.outcome) == row.atOnce);
  }
}

TEST_CASE("ca failover: the accounts an attempt tries, sticky until failback_after") {
  const Timestamp now = fromUnixSeconds(2'000'000'000);
  const CaFailoverPolicy policy{3, std::chrono::hours{24}};
  struct Row {
    const char* what;
    std::vector<Id> preference;
    Id failover;
    std::optional<Duration> failedOverAgo;
    std::vector<Id> expected;
  };
  const Row rows[] = {
      {"no failover: first choice first", {"a", "b", "c"}, "", std::nullopt, {"a", "b", "c"}},
      {"failed over an hour ago: from there, wrapping round",
       {"a", "b", "c"},
       "b",
       std::chrono::hours{1},
       {"b", "c", "a"}},
      {"failed over to the last", {"a", "b", "c"}, "c", std::chrono::hours{1}, {"c", "a", "b"}},
      {"failback_after has passed", {"a", "b", "c"}, "b", std::chrono::hours{25}, {"a", "b", "c"}},
      {"the failover account left the list", {"a", "c"}, "b", std::chrono::hours{1}, {"a", "c"}},
      {"an account named twice is tried once", {"a", "b", "a"}, "", std::nullopt, {"a", "b"}},
      {"one account", {"a"}, "", std::nullopt, {"a"}},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    Certificate cert;
    cert.failover_account_id = row.failover;
    if (row.failedOverAgo) cert.failover_at = now - *row.failedOverAgo;
    CHECK(accountsToTry(cert, row.preference, now, policy) == row.expected);
  }
}

TEST_CASE("certificates: issuer preference, profile and preferred chain are checked") {
  struct Row {
    const char* what;
    std::function<void(Certificate&)> change;
    bool ok;
  };
  const Row rows[] = {
      {"five accounts",
       [](Certificate& c) {
         c.acme_account_ids = {"a", "b", "c", "d", "e"};
       },
       true},
      {"six accounts", [](Certificate& c) { c.acme_account_ids = {"a", "b", "c", "d", "e", "f"}; },
       false},
      {"an account twice",
       [](Certificate& c) {
         c.acme_account_ids = {"a", "b", "a"};
       },
       false},
      {"an empty id", [](Certificate& c) { c.acme_account_ids = {""}; }, false},
      {"a profile", [](Certificate& c) { c.profile = "tlsserver"; }, true},
      {"a profile with a slash", [](Certificate& c) { c.profile = "a/b"; }, false},
      {"a preferred chain", [](Certificate& c) { c.preferred_chain = "ISRG Root X1"; }, true},
      {"a preferred chain with a newline", [](Certificate& c) { c.preferred_chain = "ISRG\nRoot"; },
       false},
      {"an IPv4 address as a SAN",
       [](Certificate& c) {
         c.sans = {"www.example.com", "192.0.2.1"};
       },
       false},
      {"a name ending in digits",
       [](Certificate& c) {
         c.sans = {"www.example.com", "a.b.123"};
       },
       false},
      {"a preferred chain of 201 characters",
       [](Certificate& c) { c.preferred_chain = std::string(201, 'x'); }, false},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    Certificate cert;
    cert.common_name = "www.example.com";
    cert.sans = {"www.example.com"};
    row.change(cert);
    CHECK(validateNewCertificate(cert).ok() == row.ok);
  }
}
