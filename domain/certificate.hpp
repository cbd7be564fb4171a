// Certificates and their life cycle: issuance, renewal, and the rules around renewal timing,
// idempotency and distribution. The transitions are one table (see certificateTransitions()).
//
// Statuses:
//   issuing              created; the issue_certificate job has not succeeded yet
//   active               issued and valid; renewal is scheduled at next_renewal_at
//   renewal_pending      a renewal job is queued (scheduled, manual, or retrying after a failure)
//   renewal_in_progress  a worker is running a renewal attempt
//   renewal_failed       the renewal job exhausted its attempts; the sweep tries again later
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/events.hpp>
#include <certsteward/domain/id.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/state_machine.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

enum class CertificateStatus {
  issuing,
  active,
  renewal_pending,
  renewal_in_progress,
  renewal_failed
};

enum class KeyType { rsa_2048, rsa_3072, rsa_4096, ecdsa_p256, ecdsa_p384 };

// How the CA is shown control of the names: a TXT record through the project's DNS zones
// (RFC 8555 8.4), or a file at http://<name>/.well-known/acme-challenge/ (8.3; no wildcards).
enum class ChallengeType { dns_01, http_01 };

std::string_view nameOf(CertificateStatus s) noexcept;
std::string_view nameOf(KeyType k) noexcept;
std::optional<CertificateStatus> parseCertificateStatus(std::string_view text) noexcept;
std::optional<KeyType> parseKeyType(std::string_view text) noexcept;
std::string_view nameOf(ChallengeType c) noexcept;
std::optional<ChallengeType> parseChallengeType(std::string_view text) noexcept;

struct CertificatePolicy {
  int default_renewal_threshold_days = 30;
  int min_renewal_threshold_days = 1;
  int max_renewal_threshold_days = 365;
  // After a renewal exhausts its attempts, the sweep waits this long before trying again.
  Duration retry_after_failed_renewal = std::chrono::hours{6};
  // A certificate this close to expiry raises cert.expiring_soon at each expiry check.
  Duration expiring_soon_window = std::chrono::days{14};
  // An expiry check with more certificates in the window than this fans out into batch jobs.
  std::int64_t expiry_check_batch = 500;
  // distribution_pending for longer than this makes the sweep enqueue distribution_execute.
  Duration stale_distribution_after = std::chrono::minutes{5};
};

struct Certificate {
  Id id;
  Id project_id;
  std::string common_name;
  std::vector<std::string> sans;  // subject alternative names, common_name included
  KeyType key_type = KeyType::ecdsa_p256;
  CertificateStatus status = CertificateStatus::issuing;
  bool auto_renew = true;
  std::string issuer_type = "acme";
  std::optional<Id> acme_account_id;
  // Issuer preference: the ACME accounts (of different CA providers) to order from, first
  // choice first; a CA that fails hands the order on to the next (CaFailoverPolicy). Empty:
  // acme_account_id alone, else the project's first account.
  std::vector<Id> acme_account_ids;
  std::string profile;          // the ACME profile newOrder asks for; empty: the CA's default
  std::string preferred_chain;  // the issuer common name of the chain's topmost certificate
  Id issued_by_account_id;      // the account the current version was ordered through
  Id issued_by_provider_id;     // and its CA provider
  // After a failover: the account orders start from (empty: the first choice) and since when;
  // the failed attempts in a row with the account orders start from.
  Id failover_account_id;
  std::optional<Timestamp> failover_at;
  int ca_failures = 0;
  ChallengeType challenge = ChallengeType::dns_01;
  // HTTP-01 through a webroot: the `file` or `ssh` module configuration whose targets write the
  // token files under their `webroot`. Empty: this service answers on acme.http01_listen.
  Id http01_module_config_id;
  std::optional<Timestamp> issued_at;
  std::optional<Timestamp> expires_at;
  std::optional<Timestamp> next_renewal_at;
  int renewal_threshold_days = 30;
  // When set (0 < f < 1): renewal starts with this fraction of the lifetime left, read from the
  // issued certificate (1/3: a 6-day certificate after 4 days, a 90-day one at 30 days left), and
  // renewal_threshold_days is not used. 0: renewal_threshold_days.
  double renew_at_fraction = 0;
  // When the CA that issued it is asked again for its renewal window (RFC 9773): set while the
  // certificate waits for its renewal and the CA offers renewalInfo, else empty.
  std::optional<Timestamp> ari_poll_at;
  int renewal_attempts = 0;
  std::string last_error;
  bool distribution_pending = false;
  std::optional<Timestamp> distribution_pending_since;
  std::string serial_number;
  std::string certificate_pem;     // leaf
  std::string chain_pem;           // intermediates
  std::string private_key_sealed;  // SecretBox ciphertext of the PEM key; never plaintext
  Timestamp created_at{};
  Timestamp updated_at{};
  std::int64_t version = 0;  // bumped by every store update; compare-and-set guard
};

enum class CertificateEvent {
  issued,              // the issuance job succeeded
  attempt_failed,      // an issuance or renewal attempt failed, attempts remain
  attempts_exhausted,  // the issuance or renewal job went dead
  scheduled_renew,     // the scheduler's sweep found it due
  manual_renew,        // POST .../renew
  renewal_started,     // a worker started a renewal attempt
  renewed,             // the renewal job succeeded
};

std::string_view nameOf(CertificateEvent e) noexcept;

struct CertificateContext {
  Timestamp now{};
  std::string error;                              // attempt_failed, attempts_exhausted
  std::optional<Timestamp> new_expires_at;        // issued, renewed
  std::optional<Timestamp> suggested_renewal_at;  // ARI window start, when the CA gave one
  bool has_distributions = false;                 // issued, renewed
  CertificatePolicy policy{};
  std::optional<Timestamp> new_not_before = std::nullopt;  // issued, renewed (else `now`)
};

using CertificateTransition =
    Transition<Certificate, CertificateStatus, CertificateEvent, CertificateContext>;

std::span<const CertificateTransition> certificateTransitions() noexcept;

// Applies `event` in place. Returns the event kind raised, if any; failed_precondition (and the
// certificate untouched) when the table has no row for it.
Result<std::optional<EventKind>> applyCertificateEvent(Certificate& cert, CertificateEvent event,
                                                       const CertificateContext& ctx);

// expires_at - renewal_threshold_days.
Timestamp renewalTime(Timestamp expiresAt, int thresholdDays);

// The renew_at_fraction of certificates created without a threshold of their own.
inline constexpr double kDefaultRenewAtFraction = 1.0 / 3.0;
// When `cert`, issued valid from `notBefore` to `expiresAt`, is renewed: with renew_at_fraction,
// that fraction of the lifetime before expiresAt; else renewal_threshold_days before it, unless
// the lifetime is not longer than the threshold (a 30-day threshold on a 6-day certificate would
// renew at once, again and again): then kDefaultRenewAtFraction of it.
Timestamp renewalTimeFor(const Certificate& cert, Timestamp notBefore, Timestamp expiresAt);

// ACME Renewal Information (RFC 9773): how often the CA is asked again for a renewal window.
struct RenewalInfoPolicy {
  Duration min_interval = std::chrono::hours{1};      // a shorter Retry-After is stretched to it
  Duration max_interval = std::chrono::hours{24};     // a longer one is cut to it
  Duration default_interval = std::chrono::hours{6};  // no Retry-After, or the CA not reached
};
// When to ask again after asking at `now`: the CA's Retry-After (`failed`: the default interval)
// bounded by the policy, less up to a tenth of it by `jitter` (in [0, 1)), so certificates issued
// together do not ask together.
Timestamp nextRenewalInfoPoll(Timestamp now, std::optional<Timestamp> retryAfter, double jitter,
                              bool failed, const RenewalInfoPolicy& policy = {});
// Takes the renewal window [start, end] the CA suggests, read at `now`: when it starts before
// cert.next_renewal_at (a window that moved earlier, e.g. a CA about to revoke), the renewal
// moves to `fraction` (in [0, 1)) of the way through it, never before now (a window already past:
// renew at once). A later window leaves the renewal where it is. Whether it moved.
bool takeRenewalWindow(Certificate& cert, Timestamp start, Timestamp end, double fraction,
                       Timestamp now);

// When one CA of a certificate's issuer preference fails, the next is tried.
struct CaFailoverPolicy {
  int after_failures = 3;  // failed attempts in a row with one CA before the next is tried
  Duration failback_after = std::chrono::hours{24};  // then the first choice is tried again
};

// How an order through one CA ended, as far as failover cares.
enum class CaOutcome {
  issued,
  unreachable,   // no connection, a timeout, or a 5xx answer
  rate_limited,  // a rateLimited answer, or one still in force
  caa_refused,   // CAA forbids this CA for a name (RFC 8659)
  disabled,      // the account's CA provider is disabled
  refused,       // anything else: a validation failure, a refusal of the order
};
std::string_view nameOf(CaOutcome outcome) noexcept;

// Whether `outcome` hands the order to the next CA at once (rather than after after_failures
// attempts in a row).
bool failsOverAtOnce(CaOutcome outcome) noexcept;

// The accounts an attempt tries, in order: `preference` from the failover account when a
// failover happened less than failback_after ago (then the rest, wrapping round), else from the
// first choice. Each account at most once.
std::vector<Id> accountsToTry(const Certificate& cert, const std::vector<Id>& preference,
                              Timestamp now, const CaFailoverPolicy& policy);

// "renew:<cert_id>:<expires_at_unix>" — the idempotency key of a renewal job.
std::string renewalIdempotencyKey(const Certificate& cert);
// "distribute:<id>:<expires_at_unix>": one distribution job per issued version of a certificate.
std::string distributionIdempotencyKey(const Certificate& cert);

// Spec, States, rule 2: active past next_renewal_at, or renewal_failed with attempts made.
bool isFailedRenewal(const Certificate& cert, Timestamp now) noexcept;

// auto_renew, active or renewal_failed, and next_renewal_at has passed.
bool isDueForRenewal(const Certificate& cert, Timestamp now) noexcept;

// Issued and within the expiring-soon window (or already expired).
bool isExpiringSoon(const Certificate& cert, Timestamp now, const CertificatePolicy& policy = {});

// distribution_pending for longer than the stale threshold.
bool isDistributionStale(const Certificate& cert, Timestamp now,
                         const CertificatePolicy& policy = {}) noexcept;

// Marks or clears distribution_pending (and its start time).
void setDistributionPending(Certificate& cert, bool pending, Timestamp now);

// A DNS name acceptable in a certificate: lower-case LDH labels of 1..63 characters, at most
// 253 in all, at least two labels, an optional leading "*." wildcard label.
bool isValidDnsName(std::string_view name) noexcept;

// Validates a new certificate's request fields. invalid_argument names the field.
Status validateNewCertificate(const Certificate& cert, const CertificatePolicy& policy = {});

}  // namespace certsteward::domain
