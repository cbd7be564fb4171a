// A project's issuance settings (project admins change them): the defaults a new certificate
// takes when it names none of its own (the issuer preference, the ACME profile, the chain), and
// the policy every certificate of the project must keep — the key types, the names, the CA
// providers, the longest lifetime. A certificate outside the policy is refused at creation
// (422 policy_violation, each broken rule named) and its renewal is stopped, with an event.
// Also here: the lifetimes CA/Browser Forum ballot SC-081 allows publicly trusted TLS
// certificates by the date they are issued.
#pragma once

#include <string>
#include <vector>

#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/id.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

struct IssuancePolicy {
  std::vector<KeyType> allowed_key_types;  // empty: every key type
  // Empty: any name. Else each DNS name must be a suffix or end in "." + a suffix (a wildcard
  // "*.a.example.com" is judged by "a.example.com").
  std::vector<std::string> allowed_suffixes;
  bool allow_wildcards = true;
  bool allow_ip_addresses = true;
  int max_lifetime_days = 0;                // 0: no limit; else an issued certificate's
  std::vector<Id> allowed_ca_provider_ids;  // empty: every provider
  friend bool operator==(const IssuancePolicy&, const IssuancePolicy&) = default;
};

// What a new certificate takes when its request leaves it out.
struct IssuanceDefaults {
  std::vector<Id> acme_account_ids;  // the issuer preference, first choice first
  std::string profile;
  std::string preferred_chain;
  friend bool operator==(const IssuanceDefaults&, const IssuanceDefaults&) = default;
};

struct ProjectIssuance {
  IssuanceDefaults defaults;
  IssuancePolicy policy;
  friend bool operator==(const ProjectIssuance&, const ProjectIssuance&) = default;
};

// One broken rule: `rule` is the policy field ("allowed_key_types", "allowed_suffixes",
// "allow_wildcards", "allow_ip_addresses", "allowed_ca_provider_ids", "max_lifetime_days").
struct PolicyViolation {
  std::string rule;
  std::string message;
  friend bool operator==(const PolicyViolation&, const PolicyViolation&) = default;
};

// The reason of an invalid_argument that is a policy violation; references hold one
// "<rule>: <message>" per violation (answered 422 {"error": "policy_violation", "message",
// "violations": [{"rule", "message"}]}).
inline constexpr const char* kPolicyViolation = "POLICY_VIOLATION";
Error policyError(const std::vector<PolicyViolation>& violations);

// Whether `name` is an IP address in its canonical text form (dotted quad, RFC 5952 IPv6).
bool isIpIdentifier(std::string_view name);

// The rules `cert` breaks: its key type, names, and the CA providers of the accounts it orders
// from (`providerIds`, one per account, empty when an account has none).
std::vector<PolicyViolation> policyViolations(const Certificate& cert,
                                              const std::vector<Id>& providerIds,
                                              const IssuancePolicy& policy);
// The rule an issued certificate valid from `notBefore` to `notAfter` breaks, if any.
std::vector<PolicyViolation> lifetimeViolations(Timestamp notBefore, Timestamp notAfter,
                                                const IssuancePolicy& policy);

// The longest lifetime SC-081 allows a publicly trusted TLS certificate issued at `notBefore`:
// 398 days before 2026-03-15, 200 days from then, 100 from 2027-03-15, 47 from 2029-03-15.
Duration sc081MaxLifetime(Timestamp notBefore);
// Whether a certificate valid from `notBefore` to `notAfter` is longer than SC-081 allows.
bool exceedsSc081(Timestamp notBefore, Timestamp notAfter);

// Validates the settings (key types known, suffixes DNS names, lifetime 0..3650 days, at most
// 100 suffixes and 50 providers; the defaults as a certificate's fields). invalid_argument names
// the field, "policy.allowed_suffixes" or "defaults.profile".
Status validateProjectIssuance(const ProjectIssuance& issuance);

}  // namespace certsteward::domain
