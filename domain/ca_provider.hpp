// CA providers: the certificate authorities the organisation issues from (GET /ca-providers).
// Each is an ACME directory with what is known of it: the trust bundle its TLS certificate
// chains to (private CAs), whether it needs External Account Binding, the names it writes into
// CAA (RFC 8659 issuer-domain-names), its published rate limits and the profiles its directory
// offers (draft-ietf-acme-profiles). Project ACME accounts refer to one. All of them are one
// org-wide document (CaProviderList): there are a handful, and a change reads and writes them
// together.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/ca_quota.hpp>
#include <certsteward/domain/id.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

struct CaProfile {
  std::string name;         // what newOrder's `profile` carries
  std::string description;  // the directory's words (often a URL)
  friend bool operator==(const CaProfile&, const CaProfile&) = default;
};

// Windows as Let's Encrypt counts them; max 0 until a limit is known.
struct CaRateLimits {
  QuotaLimit certificates{0, std::chrono::days{7}};  // new certificates per registered domain
  QuotaLimit orders{0, std::chrono::hours{3}};       // new orders per account
  QuotaLimit failed_validations{0, std::chrono::hours{1}};  // failed authorizations per identifier
  friend bool operator==(const CaRateLimits&, const CaRateLimits&) = default;
};

struct CaProvider {
  Id id;
  std::string name;
  std::string kind = "acme";
  std::string preset = "custom";  // the preset it was made from (kCaPresets), or "custom"
  std::string directory_url;      // unique among the providers
  std::string trust_bundle;       // PEM; empty: the system's roots (or acme.ca_bundle)
  bool eab_required = false;
  std::vector<std::string> caa_identities;  // lower-case domain names
  CaRateLimits rate_limits;                 // max 0: not published
  std::vector<CaProfile> profiles;          // from the directory's meta.profiles
  bool enabled = true;
  std::optional<Timestamp> directory_read_at;  // when the directory was last read
  std::string directory_error;                 // why the last read failed ("" when it did not)
  Timestamp created_at{};
  Timestamp updated_at{};
};

// The stored document: every provider, in creation order.
struct CaProviderList {
  std::vector<CaProvider> providers;
};

// A provider one can add in one step.
struct CaPreset {
  std::string_view key;  // "letsencrypt"
  std::string_view name;
  std::string_view directory_url;
  bool eab_required;
  std::string_view caa_identity;
  CaRateLimits rate_limits;
};

std::span<const CaPreset> caPresets() noexcept;
const CaPreset* findCaPreset(std::string_view key) noexcept;
const CaPreset* findCaPresetByUrl(std::string_view directoryUrl) noexcept;
// The provider a preset makes (no id or times).
CaProvider providerFromPreset(const CaPreset& preset);

// What the directory's `meta` says (RFC 8555 7.1.1 and the profiles draft).
struct CaDirectoryMeta {
  std::vector<CaProfile> profiles;
  std::vector<std::string> caa_identities;
  bool external_account_required = false;
  bool renewal_info = false;  // the directory offers renewalInfo (RFC 9773)
};

// Takes in a fresh read of the directory: profiles always; CAA identities and the EAB flag only
// where the provider has none of its own (a person's setting wins over the CA's words).
void applyDirectoryMeta(CaProvider& provider, const CaDirectoryMeta& meta, Timestamp now);

// The rules of one provider alone: invalid_argument naming the field (name, kind,
// directory_url, trust_bundle, caa_identities, rate_limits, profiles).
Status validateCaProvider(const CaProvider& provider);

// The rules between providers: a name or directory URL another provider (another id) already
// has is a conflict naming the field.
Status checkCaProviderUnique(const CaProviderList& list, const CaProvider& provider);

CaProvider* findCaProvider(CaProviderList& list, std::string_view id) noexcept;
const CaProvider* findCaProvider(const CaProviderList& list, std::string_view id) noexcept;
const CaProvider* findCaProviderByUrl(const CaProviderList& list,
                                      std::string_view directoryUrl) noexcept;

// The name a provider made for a bare directory URL gets: its host, made unique in `list`.
std::string providerNameForUrl(const CaProviderList& list, std::string_view directoryUrl);

// The profile named `profile` offered by `provider`, or why not: invalid_argument naming
// `profile` (the provider's known profiles listed, or that none are known).
Status checkProfile(const CaProvider& provider, std::string_view profile);

inline constexpr std::size_t kMaxCaProviders = 50;

}  // namespace certsteward::domain
