// Issuer: a certificate authority (ACME in production). Called by job handlers only.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/acme_account.hpp>
#include <certsteward/domain/ca_provider.hpp>
#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/stop_signal.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::ports {

class DnsProvider;

// The reason of an unavailable error when the CA itself could not be reached (no connection,
// TLS, timeout). A CA's 5xx answer has its problem type ("serverInternal") or "http_5xx".
inline constexpr std::string_view kCaUnreachable = "ca_unreachable";

// What the CA was asked and answered during one issue() call, filled in as it happens (also when
// issue() fails), so the caller can count the CA's quotas and honour a rate-limit refusal.
struct IssueReport {
  int orders_created = 0;
  std::vector<std::string> failed_validations;  // names whose authorization the CA found invalid
  bool rate_limited = false;                    // the CA answered rateLimited
  std::optional<domain::Duration> retry_after;  // its Retry-After, when it sent one
  std::string rate_limit_detail;                // its words
};

// One HTTP-01 challenge (RFC 8555 8.3): `key_authorization` must be the body of
// http://<name>/.well-known/acme-challenge/<token> while the CA validates. The token is
// base64url (checked by the issuer before anything sees it).
struct Http01Challenge {
  std::string name;
  std::string token;
  std::string key_authorization;
};

// Puts HTTP-01 answers where the CA will fetch them: served by this service itself, or written
// into a webroot through a distribution module.
class Http01Responder {
 public:
  virtual ~Http01Responder() = default;
  /** Makes `challenge` answerable. @return an error saying what to fix. Blocks on the network. */
  virtual domain::Status present(const Http01Challenge& challenge) = 0;
  /** Withdraws it; withdrawing an absent one succeeds. */
  virtual domain::Status cleanup(const Http01Challenge& challenge) = 0;
};

struct IssueRequest {
  domain::AcmeAccount account;     // with its sealed key; the adapter opens it via SecretBox
  std::vector<std::string> names;  // common name first
  domain::KeyType key_type = domain::KeyType::ecdsa_p256;
  // When raised, the order is abandoned at the next step (unavailable, "stopped ...").
  const domain::StopSignal* stop = nullptr;
  IssueReport* report = nullptr;  // filled in when set
  // dns-01: through issue()'s DnsProvider. http-01: through `http01` (required then).
  domain::ChallengeType challenge = domain::ChallengeType::dns_01;
  Http01Responder* http01 = nullptr;
  std::string profile =
      {};  // newOrder's `profile` (draft-ietf-acme-profiles); empty: the CA's default
  // A renewal: the certificate it replaces. Its RFC 9773 identifier goes into newOrder's
  // `replaces` when the CA offers renewalInfo (once more without it when the CA refuses it).
  std::string replaces_certificate_pem = {};
  // The issuer common name of the topmost certificate of the chain wanted among those the CA
  // offers (Link rel="alternate"); empty, or none matching: the CA's default chain.
  std::string preferred_chain = {};
};

struct IssuedCertificate {
  std::string certificate_pem;
  std::string chain_pem;
  std::string private_key_pem;  // sealed by the caller before it is stored
  std::string serial_number;
  domain::Timestamp not_before{};
  domain::Timestamp expires_at{};
  std::optional<domain::Timestamp> suggested_renewal_at;  // from ARI when offered
  bool replaced = false;          // the order named the certificate it replaces (RFC 9773)
  std::string chain_issuer = {};  // the issuer common name of the chain's topmost certificate
};

struct AccountState {
  std::string status;  // as the CA reports it ("valid", "deactivated", "revoked")
  std::string account_url;
  std::string key_sealed;  // set when the adapter generated a new key
};

// A CA's suggested renewal window for one certificate (RFC 9773).
struct RenewalInfo {
  domain::Timestamp window_start{};
  domain::Timestamp window_end{};
  std::string explanation_url;                        // empty when the CA gave none
  std::optional<domain::Timestamp> retry_after = {};  // when to ask again (Retry-After)
};

// What an issuer adapter is and can do (GET /ca-providers reports it).
struct IssuerInfo {
  std::string issuer_type;  // "acme"
  std::string name;
  std::vector<std::string> challenges;  // "dns-01", "http-01"
  std::vector<std::string> features;    // "eab", "ari", "key_rollover", "revocation", ...
};

class Issuer {
 public:
  virtual ~Issuer() = default;

  /** @return what this issuer is; empty issuer_type when the build has none. Thread-safe. */
  virtual IssuerInfo info() const { return {}; }

  /**
   * Reads the directory at `directoryUrl`, trusting only `trustBundle` (PEM) for its HTTPS when
   * it is not empty.
   * @return what its meta says; unavailable when it cannot be reached, failed_precondition when
   * it is no ACME directory. Thread-safe; blocks on the network.
   */
  virtual domain::Result<domain::CaDirectoryMeta> readDirectory(const std::string& directoryUrl,
                                                                const std::string& trustBundle) {
    (void)directoryUrl;
    (void)trustBundle;
    return domain::makeError(domain::ErrorCode::failed_precondition,
                             "this issuer cannot read ACME directories");
  }

  /**
   * Registers (or finds) `account` at the CA.
   * @return its state; unavailable when the CA cannot be reached, failed_precondition or
   * permission_denied for a CA refusal (its message kept). Thread-safe; blocks on the network.
   */
  virtual domain::Result<AccountState> registerAccount(const domain::AcmeAccount& account) = 0;

  /**
   * Orders, proves control through `dns` (or the request's HTTP-01 responder), finalizes and
   * downloads a certificate.
   * @return the certificate; unavailable, resource_exhausted (CA rate limit), or
   * failed_precondition with the CA's message. Thread-safe; blocks on the network.
   */
  virtual domain::Result<IssuedCertificate> issue(const IssueRequest& request,
                                                  DnsProvider& dns) = 0;

  /**
   * Asks the CA `account` belongs to for its suggested renewal window of `certificatePem`
   * (RFC 9773 renewalInfo), with its Retry-After.
   * @return the window; failed_precondition when the CA offers no renewalInfo or the certificate
   * has no identifier for it, unavailable when the CA cannot be reached or answers otherwise.
   * Thread-safe; blocks on the network.
   */
  virtual domain::Result<RenewalInfo> renewalInfo(const domain::AcmeAccount& account,
                                                  const std::string& certificatePem) {
    (void)account;
    (void)certificatePem;
    return domain::makeError(domain::ErrorCode::failed_precondition,
                             "this issuer has no renewal information");
  }

  /** Revokes a certificate issued through `account`. Errors as above. Thread-safe. */
  virtual domain::Status revoke(const domain::AcmeAccount& account,
                                const std::string& certificatePem) = 0;

  /**
   * Replaces the registered account's key with a new one made here (RFC 8555 7.3.5).
   * @return the state with the new key sealed in key_sealed (the caller stores it; the old key
   * no longer works at the CA); failed_precondition when the account is not registered or the
   * CA refuses. Thread-safe; blocks on the network.
   */
  virtual domain::Result<AccountState> rolloverKey(const domain::AcmeAccount& account) = 0;
};

using IssuerPtr = std::unique_ptr<Issuer>;

}  // namespace certsteward::ports
