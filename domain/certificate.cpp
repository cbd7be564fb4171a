// The certificate life cycle table and the renewal-timing rules around it.
#include <certsteward/domain/certificate.hpp>

#include <algorithm>
#include <array>

#include <certsteward/domain/enum_names.hpp>
#include <certsteward/domain/issuance_policy.hpp>

namespace certsteward::domain {
namespace {

using SP = std::pair<CertificateStatus, std::string_view>;
constexpr auto kStatusNames = makeEnumNames<CertificateStatus>(
    SP{CertificateStatus::issuing, "issuing"}, SP{CertificateStatus::active, "active"},
    SP{CertificateStatus::renewal_pending, "renewal_pending"},
    SP{CertificateStatus::renewal_in_progress, "renewal_in_progress"},
    SP{CertificateStatus::renewal_failed, "renewal_failed"});

using KP = std::pair<KeyType, std::string_view>;
constexpr auto kKeyNames =
    makeEnumNames<KeyType>(KP{KeyType::rsa_2048, "rsa_2048"}, KP{KeyType::rsa_3072, "rsa_3072"},
                           KP{KeyType::rsa_4096, "rsa_4096"}, KP{KeyType::ecdsa_p256, "ecdsa_p256"},
                           KP{KeyType::ecdsa_p384, "ecdsa_p384"});

using CP = std::pair<ChallengeType, std::string_view>;
constexpr auto kChallengeNames = makeEnumNames<ChallengeType>(
    CP{ChallengeType::dns_01, "dns-01"}, CP{ChallengeType::http_01, "http-01"});

using EP = std::pair<CertificateEvent, std::string_view>;
constexpr auto kEventNames = makeEnumNames<CertificateEvent>(
    EP{CertificateEvent::issued, "issued"}, EP{CertificateEvent::attempt_failed, "attempt_failed"},
    EP{CertificateEvent::attempts_exhausted, "attempts_exhausted"},
    EP{CertificateEvent::scheduled_renew, "scheduled_renew"},
    EP{CertificateEvent::manual_renew, "manual_renew"},
    EP{CertificateEvent::renewal_started, "renewal_started"},
    EP{CertificateEvent::renewed, "renewed"});

// ---- guards ----
bool always(const Certificate&, const CertificateContext&) {
  return true;
}
bool hasNewExpiry(const Certificate&, const CertificateContext& c) {
  return c.new_expires_at.has_value();
}
bool due(const Certificate& cert, const CertificateContext& c) {
  return isDueForRenewal(cert, c.now);
}

// ---- effects ----
void touch(Certificate& cert, const CertificateContext& c) {
  cert.updated_at = c.now;
}
void nothing(Certificate& cert, const CertificateContext& c) {
  touch(cert, c);
}
void recordError(Certificate& cert, const CertificateContext& c) {
  cert.last_error = c.error;
  touch(cert, c);
}
void storeIssued(Certificate& cert, const CertificateContext& c) {
  cert.issued_at = c.now;
  cert.expires_at = c.new_expires_at;
  cert.next_renewal_at =
      c.suggested_renewal_at
          ? *c.suggested_renewal_at
          : renewalTimeFor(cert, c.new_not_before.value_or(c.now), *c.new_expires_at);
  cert.renewal_attempts = 0;
  cert.last_error.clear();
  setDistributionPending(cert, c.has_distributions, c.now);
  touch(cert, c);
}
void countAttempt(Certificate& cert, const CertificateContext& c) {
  cert.renewal_attempts += 1;
  touch(cert, c);
}
void renewalFailed(Certificate& cert, const CertificateContext& c) {
  cert.last_error = c.error;
  cert.next_renewal_at = c.now + c.policy.retry_after_failed_renewal;
  touch(cert, c);
}

using S = CertificateStatus;
using E = CertificateEvent;

constexpr std::array kTransitions{
    CertificateTransition{S::issuing, E::issued, hasNewExpiry, "the CA returned a certificate",
                          S::active, storeIssued,
                          "expires_at, next_renewal_at = expires_at - threshold (renew_at_fraction "
                          "of the lifetime, or the ARI window), last_error cleared, "
                          "distribution_pending if it has targets",
                          EventKind::cert_issued},
    CertificateTransition{S::issuing, E::attempt_failed, always, "", S::issuing, recordError,
                          "last_error set; the job retries with backoff", std::nullopt},
    CertificateTransition{S::issuing, E::attempts_exhausted, always, "", S::issuing, recordError,
                          "last_error set; stays issuing until the job is retried or the "
                          "certificate deleted (the job raises job.failed)",
                          std::nullopt},
    CertificateTransition{S::active, E::scheduled_renew, due,
                          "auto_renew and next_renewal_at has passed", S::renewal_pending, nothing,
                          "renew_certificate job enqueued under `renew:<id>:<expires_at_unix>`",
                          std::nullopt},
    CertificateTransition{S::renewal_failed, E::scheduled_renew, due,
                          "auto_renew and next_renewal_at (the retry cool-off) has passed",
                          S::renewal_pending, nothing, "renew_certificate job enqueued",
                          std::nullopt},
    CertificateTransition{S::active, E::manual_renew, always, "", S::renewal_pending, nothing,
                          "renew_certificate job enqueued", std::nullopt},
    CertificateTransition{S::renewal_failed, E::manual_renew, always, "", S::renewal_pending,
                          nothing, "renew_certificate job enqueued", std::nullopt},
    CertificateTransition{S::renewal_pending, E::renewal_started, always, "",
                          S::renewal_in_progress, countAttempt, "renewal_attempts + 1",
                          std::nullopt},
    CertificateTransition{S::renewal_in_progress, E::renewed, hasNewExpiry,
                          "the CA returned a certificate", S::active, storeIssued,
                          "new expires_at and next_renewal_at, renewal_attempts = 0, last_error "
                          "cleared, distribution_pending if it has targets",
                          EventKind::cert_renewed},
    CertificateTransition{S::renewal_in_progress, E::attempt_failed, always, "", S::renewal_pending,
                          recordError, "last_error set; the job retries with backoff",
                          std::nullopt},
    CertificateTransition{S::renewal_in_progress, E::attempts_exhausted, always, "",
                          S::renewal_failed, renewalFailed,
                          "last_error set, next_renewal_at = now + 6 h (retry cool-off)",
                          EventKind::cert_renewal_failed},
    CertificateTransition{S::renewal_pending, E::attempts_exhausted, always, "", S::renewal_failed,
                          renewalFailed,
                          "last_error set, next_renewal_at = now + 6 h (retry cool-off)",
                          EventKind::cert_renewal_failed},
};

bool isLdh(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

}  // namespace

std::string_view nameOf(CertificateStatus s) noexcept {
  return kStatusNames.name(s);
}
std::string_view nameOf(KeyType k) noexcept {
  return kKeyNames.name(k);
}
std::string_view nameOf(CertificateEvent e) noexcept {
  return kEventNames.name(e);
}
std::optional<CertificateStatus> parseCertificateStatus(std::string_view t) noexcept {
  return kStatusNames.parse(t);
}
std::optional<KeyType> parseKeyType(std::string_view t) noexcept {
  return kKeyNames.parse(t);
}

std::string_view nameOf(ChallengeType c) noexcept {
  return kChallengeNames.name(c);
}
std::optional<ChallengeType> parseChallengeType(std::string_view t) noexcept {
  return kChallengeNames.parse(t);
}

std::span<const CertificateTransition> certificateTransitions() noexcept {
  return kTransitions;
}

Result<std::optional<EventKind>> applyCertificateEvent(Certificate& cert, CertificateEvent event,
                                                       const CertificateContext& ctx) {
  auto outcome = applyTransition(certificateTransitions(), cert, &Certificate::status, event, ctx);
  if (auto* raised = std::get_if<std::optional<EventKind>>(&outcome)) return *raised;
  std::string message = "cannot apply ";
  message += nameOf(event);
  message += " to a certificate that is ";
  message += nameOf(cert.status);
  return makeError(ErrorCode::failed_precondition, std::move(message));
}

Timestamp renewalTime(Timestamp expiresAt, int thresholdDays) {
  return expiresAt - std::chrono::days{thresholdDays};
}

Timestamp renewalTimeFor(const Certificate& cert, Timestamp notBefore, Timestamp expiresAt) {
  const Duration lifetime = std::max(Duration{0}, expiresAt - notBefore);
  const auto leftOf = [&](double fraction) {
    return std::chrono::duration_cast<Duration>(std::chrono::duration<double, std::milli>(
        static_cast<double>(lifetime.count()) * fraction));
  };
  if (cert.renew_at_fraction > 0 && cert.renew_at_fraction < 1) {
    return expiresAt - leftOf(cert.renew_at_fraction);
  }
  const Duration threshold = std::chrono::days{cert.renewal_threshold_days};
  if (threshold >= lifetime) return expiresAt - leftOf(kDefaultRenewAtFraction);
  return expiresAt - threshold;
}

std::string renewalIdempotencyKey(const Certificate& cert) {
  const std::int64_t expiry = cert.expires_at ? unixSeconds(*cert.expires_at) : 0;
  return "renew:" + cert.id + ":" + std::to_string(expiry);
}

std::string distributionIdempotencyKey(const Certificate& cert) {
  const std::int64_t expiry = cert.expires_at ? unixSeconds(*cert.expires_at) : 0;
  return "distribute:" + cert.id + ":" + std::to_string(expiry);
}

bool isFailedRenewal(const Certificate& cert, Timestamp now) noexcept {
  if (cert.status == CertificateStatus::active) {
    return cert.next_renewal_at && now > *cert.next_renewal_at;
  }
  return cert.status == CertificateStatus::renewal_failed && cert.renewal_attempts != 0;
}

bool isDueForRenewal(const Certificate& cert, Timestamp now) noexcept {
  return cert.auto_renew &&
         (cert.status == CertificateStatus::active ||
          cert.status == CertificateStatus::renewal_failed) &&
         cert.next_renewal_at && *cert.next_renewal_at <= now;
}

bool isExpiringSoon(const Certificate& cert, Timestamp now, const CertificatePolicy& policy) {
  return cert.expires_at && *cert.expires_at - now <= policy.expiring_soon_window;
}

bool isDistributionStale(const Certificate& cert, Timestamp now,
                         const CertificatePolicy& policy) noexcept {
  return cert.distribution_pending && cert.distribution_pending_since &&
         now - *cert.distribution_pending_since > policy.stale_distribution_after;
}

void setDistributionPending(Certificate& cert, bool pending, Timestamp now) {
  cert.distribution_pending = pending;
  if (pending) {
    cert.distribution_pending_since = now;
  } else {
    cert.distribution_pending_since.reset();
  }
}

bool isValidDnsName(std::string_view name) noexcept {
  if (name.starts_with("*.")) name.remove_prefix(2);
  if (name.empty() || name.size() > 253) return false;
  int labels = 0;
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t dot = std::min(name.find('.', start), name.size());
    const std::string_view label = name.substr(start, dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
      return false;
    }
    if (!std::all_of(label.begin(), label.end(), isLdh)) return false;
    ++labels;
    start = dot + 1;
  }
  return labels >= 2;
}

Status validateNewCertificate(const Certificate& cert, const CertificatePolicy& policy) {
  if (!isValidDnsName(cert.common_name) && !isIpIdentifier(cert.common_name)) {
    return makeError(ErrorCode::invalid_argument,
                     "common_name must be a lower-case DNS name such as www.example.com, or an "
                     "IP address such as 192.0.2.1");
  }
  for (const auto& san : cert.sans) {
    if (!isValidDnsName(san) && !isIpIdentifier(san)) {
      return makeError(ErrorCode::invalid_argument,
                       "sans must contain only lower-case DNS names or IP addresses; '" +
                           san.substr(0, 64) + "' is neither");
    }
  }
  if (cert.sans.size() > 100) {
    return makeError(ErrorCode::invalid_argument, "sans may hold at most 100 names");
  }
  // An IP address (RFC 8738) in its canonical text form, proven over HTTP-01; a DNS name whose
  // last label is all digits would be read as an IPv4 address.
  std::vector<std::string> names = cert.sans;
  names.push_back(cert.common_name);
  const bool hasIp = std::any_of(names.begin(), names.end(), isIpIdentifier);
  const auto looksLikeIp = [](const std::string& name) {
    const auto last = name.substr(name.rfind('.') + 1);
    return !last.empty() &&
           std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  for (const auto& name : names) {
    if (!isIpIdentifier(name) && looksLikeIp(name)) {
      return makeError(ErrorCode::invalid_argument,
                       "common_name and sans must be DNS names or IP addresses in their usual "
                       "form (192.0.2.1, 2001:db8::1); '" +
                           name.substr(0, 64) + "' is neither");
    }
  }
  if (hasIp && cert.challenge != ChallengeType::http_01) {
    return fieldError(
        "challenge must be http-01 for a certificate with an IP address: DNS-01 "
        "cannot prove one (RFC 8738)");
  }
  if (cert.renew_at_fraction < 0 || cert.renew_at_fraction > 0.99 ||
      (cert.renew_at_fraction > 0 && cert.renew_at_fraction < 0.01)) {
    return fieldError(
        "renew_at_fraction must be between 0.01 and 0.99 (the share of the "
        "lifetime left when renewal starts)");
  }
  if (cert.renewal_threshold_days < policy.min_renewal_threshold_days ||
      cert.renewal_threshold_days > policy.max_renewal_threshold_days) {
    return makeError(ErrorCode::invalid_argument,
                     "renewal_threshold_days must be between " +
                         std::to_string(policy.min_renewal_threshold_days) + " and " +
                         std::to_string(policy.max_renewal_threshold_days));
  }
  if (cert.issuer_type != "acme") {
    return makeError(ErrorCode::invalid_argument, "issuer_type must be one of: acme");
  }
  if (cert.challenge == ChallengeType::http_01) {
    const auto wildcard = [](const std::string& n) { return n.starts_with("*."); };
    if (wildcard(cert.common_name) || std::any_of(cert.sans.begin(), cert.sans.end(), wildcard)) {
      return fieldError(
          "challenge http-01 cannot prove a wildcard name (RFC 8555 7.1.3): use dns-01");
    }
  } else if (!cert.http01_module_config_id.empty()) {
    return fieldError("http01_module_config_id is for challenge http-01 only");
  }
  if (cert.acme_account_ids.size() > 5) {
    return fieldError("acme_account_ids takes at most 5 accounts");
  }
  for (std::size_t i = 0; i < cert.acme_account_ids.size(); ++i) {
    const auto& id = cert.acme_account_ids[i];
    if (id.empty() || id.size() > 64 ||
        std::find(cert.acme_account_ids.begin(), cert.acme_account_ids.begin() + i, id) !=
            cert.acme_account_ids.begin() + i) {
      return fieldError("acme_account_ids must name different accounts");
    }
  }
  const auto printable = [](const std::string& text) {
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return static_cast<unsigned char>(c) >= 0x20 && c != 0x7f; });
  };
  if (cert.profile.size() > 64 ||
      !std::all_of(cert.profile.begin(), cert.profile.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_' || c == '.';
      })) {
    return fieldError(
        "profile must be a profile name the CA lists (letters, digits, '-', '_', '.')");
  }
  if (cert.preferred_chain.size() > 200 || !printable(cert.preferred_chain)) {
    return fieldError(
        "preferred_chain must be an issuer common name of at most 200 printable characters");
  }
  return {};
}

}  // namespace certsteward::domain

namespace certsteward::domain {

namespace {
using OP = std::pair<CaOutcome, std::string_view>;
constexpr auto kOutcomeNames = makeEnumNames<CaOutcome>(
    OP{CaOutcome::issued, "issued"}, OP{CaOutcome::unreachable, "unreachable"},
    OP{CaOutcome::rate_limited, "rate_limited"}, OP{CaOutcome::caa_refused, "caa_refused"},
    OP{CaOutcome::disabled, "disabled"}, OP{CaOutcome::refused, "refused"});
}  // namespace

std::string_view nameOf(CaOutcome outcome) noexcept {
  return kOutcomeNames.name(outcome);
}

bool failsOverAtOnce(CaOutcome outcome) noexcept {
  return outcome == CaOutcome::unreachable || outcome == CaOutcome::rate_limited ||
         outcome == CaOutcome::caa_refused || outcome == CaOutcome::disabled;
}

std::vector<Id> accountsToTry(const Certificate& cert, const std::vector<Id>& preference,
                              Timestamp now, const CaFailoverPolicy& policy) {
  std::vector<Id> unique;
  for (const auto& id : preference) {
    if (std::find(unique.begin(), unique.end(), id) == unique.end()) unique.push_back(id);
  }
  std::size_t start = 0;
  const bool sticky = !cert.failover_account_id.empty() && cert.failover_at &&
                      now - *cert.failover_at < policy.failback_after;
  if (sticky) {
    const auto at = std::find(unique.begin(), unique.end(), cert.failover_account_id);
    if (at != unique.end()) start = static_cast<std::size_t>(at - unique.begin());
  }
  std::vector<Id> order;
  for (std::size_t i = 0; i < unique.size(); ++i)
    order.push_back(unique[(start + i) % unique.size()]);
  return order;
}

}  // namespace certsteward::domain

namespace certsteward::domain {

Timestamp nextRenewalInfoPoll(Timestamp now, std::optional<Timestamp> retryAfter, double jitter,
                              bool failed, const RenewalInfoPolicy& policy) {
  Duration interval = policy.default_interval;
  if (!failed && retryAfter) {
    interval = std::clamp(*retryAfter - now, policy.min_interval, policy.max_interval);
  }
  jitter = std::clamp(jitter, 0.0, 0.999);
  const auto less = std::chrono::duration_cast<Duration>(std::chrono::duration<double, std::milli>(
      static_cast<double>(interval.count()) * 0.1 * jitter));
  return now + interval - less;
}

bool takeRenewalWindow(Certificate& cert, Timestamp start, Timestamp end, double fraction,
                       Timestamp now) {
  if (end < start) return false;
  if (cert.next_renewal_at && start >= *cert.next_renewal_at) return false;
  fraction = std::clamp(fraction, 0.0, 0.999);
  const auto into = std::chrono::duration_cast<Duration>(std::chrono::duration<double, std::milli>(
      static_cast<double>((end - start).count()) * fraction));
  const Timestamp when = std::max(start + into, now);
  if (cert.next_renewal_at && when >= *cert.next_renewal_at) return false;
  cert.next_renewal_at = when;
  return true;
}

}  // namespace certsteward::domain
