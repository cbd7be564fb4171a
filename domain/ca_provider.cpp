// CA providers: presets and rules.
#include <certsteward/domain/ca_provider.hpp>

#include <algorithm>
#include <array>
#include <cctype>

#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/encoding.hpp>
#include <certsteward/domain/name.hpp>

namespace certsteward::domain {
namespace {

using namespace std::chrono;

constexpr CaRateLimits kNoLimits{{0, days{7}}, {0, hours{3}}, {0, hours{1}}};

// Directory URLs and CAA identities as each CA documents them; Let's Encrypt's limits from
// letsencrypt.org/docs/rate-limits (the others publish none in this form).
constexpr std::array kPresets{
    CaPreset{"letsencrypt", "Let's Encrypt", "https://acme-v02.api.letsencrypt.org/directory",
             false, "letsencrypt.org", CaRateLimits{{50, days{7}}, {300, hours{3}}, {5, hours{1}}}},
    CaPreset{"letsencrypt-staging", "Let's Encrypt (staging)",
             "https://acme-staging-v02.api.letsencrypt.org/directory", false, "letsencrypt.org",
             CaRateLimits{{30000, days{7}}, {1500, hours{3}}, {200, hours{1}}}},
    CaPreset{"zerossl", "ZeroSSL", "https://acme.zerossl.com/v2/DV90", true, "sectigo.com",
             kNoLimits},
    CaPreset{"google", "Google Trust Services", "https://dv.acme-v02.api.pki.goog/directory", true,
             "pki.goog", kNoLimits},
    CaPreset{"buypass", "Buypass", "https://api.buypass.com/acme/directory", false, "buypass.com",
             kNoLimits},
    CaPreset{"sslcom", "SSL.com", "https://acme.ssl.com/sslcom-dv-ecc", true, "ssl.com", kNoLimits},
};

Error fieldIs(std::string_view field, std::string message) {
  return Error{
      ErrorCode::invalid_argument, std::move(message), kInvalidField, {std::string(field)}};
}

bool isProfileName(std::string_view name) {
  return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
}

Status checkLimit(const QuotaLimit& limit, std::string_view kind) {
  if (limit.max < 0 || limit.max > 1'000'000'000 || limit.window <= Duration::zero() ||
      limit.window > kMaxQuotaWindow) {
    return fieldIs("rate_limits", "rate_limits." + std::string(kind) +
                                      " needs a max of 0 or more and a window of at most 30 days");
  }
  return {};
}

std::string hostOf(std::string_view url) {
  auto rest = url.substr(url.find("://") == std::string_view::npos ? 0 : url.find("://") + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
  return std::string(rest.empty() ? url : rest);
}

}  // namespace

std::span<const CaPreset> caPresets() noexcept {
  return kPresets;
}

const CaPreset* findCaPreset(std::string_view key) noexcept {
  for (const auto& p : kPresets) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

const CaPreset* findCaPresetByUrl(std::string_view directoryUrl) noexcept {
  for (const auto& p : kPresets) {
    if (p.directory_url == directoryUrl) return &p;
  }
  return nullptr;
}

CaProvider providerFromPreset(const CaPreset& preset) {
  CaProvider p;
  p.name = std::string(preset.name);
  p.preset = std::string(preset.key);
  p.directory_url = std::string(preset.directory_url);
  p.eab_required = preset.eab_required;
  p.caa_identities = {std::string(preset.caa_identity)};
  p.rate_limits = preset.rate_limits;
  return p;
}

void applyDirectoryMeta(CaProvider& provider, const CaDirectoryMeta& meta, Timestamp now) {
  // What the CA says is kept only where it follows the rules a person's input does.
  provider.profiles.clear();
  for (const auto& profile : meta.profiles) {
    if (isProfileName(profile.name) && provider.profiles.size() < 50) {
      provider.profiles.push_back({profile.name, profile.description.substr(0, 2000)});
    }
  }
  std::vector<std::string> identities;
  for (auto identity : meta.caa_identities) {
    std::transform(identity.begin(), identity.end(), identity.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (isValidDnsName(identity) && !identity.starts_with("*.") && identities.size() < 20) {
      identities.push_back(std::move(identity));
    }
  }
  if (provider.caa_identities.empty()) provider.caa_identities = std::move(identities);
  provider.eab_required = provider.eab_required || meta.external_account_required;
  provider.directory_read_at = now;
  provider.directory_error.clear();
}

Status validateCaProvider(const CaProvider& provider) {
  if (!isValidName(provider.name)) return fieldIs("name", std::string("name ") + kNameRule);
  if (provider.kind != "acme") return fieldIs("kind", "kind must be acme");
  if (provider.preset != "custom" && findCaPreset(provider.preset) == nullptr) {
    return fieldIs("preset",
                   "preset must be custom or one of the presets GET /ca-providers/presets lists");
  }
  const auto& url = provider.directory_url;
  if (!url.starts_with("https://") || url.size() > 2000 || url.size() <= 8 ||
      url.find_first_of(" \t\r\n\"<>\\^`{|}") != std::string::npos) {
    return fieldIs("directory_url", "directory_url must be an https:// URL");
  }
  if (const auto authority = std::string_view(url).substr(8, url.find_first_of("/?#", 8) - 8);
      authority.find('@') != std::string_view::npos) {
    return fieldIs("directory_url",
                   "directory_url must not carry a user name or password (use EAB for accounts)");
  }
  if (!provider.trust_bundle.empty()) {
    if (auto why = pemCertificatesProblem(provider.trust_bundle); !why.empty()) {
      return fieldIs("trust_bundle", "trust_bundle " + why);
    }
  }
  if (provider.caa_identities.size() > 20) {
    return fieldIs("caa_identities", "caa_identities takes at most 20 names");
  }
  for (const auto& identity : provider.caa_identities) {
    if (!isValidDnsName(identity) || identity.starts_with("*.")) {
      return fieldIs("caa_identities",
                     "caa_identities must be lower-case domain names like letsencrypt.org");
    }
  }
  for (const auto& [limit, kind] :
       {std::pair{&provider.rate_limits.certificates, "certificates"},
        std::pair{&provider.rate_limits.orders, "orders"},
        std::pair{&provider.rate_limits.failed_validations, "failed_validations"}}) {
    if (auto s = checkLimit(*limit, kind); !s) return s;
  }
  if (provider.profiles.size() > 50) return fieldIs("profiles", "profiles takes at most 50");
  for (const auto& profile : provider.profiles) {
    if (!isProfileName(profile.name) || profile.description.size() > 2000) {
      return fieldIs("profiles",
                     "profiles must be names of 1 to 64 letters, digits, '-', '_' or "
                     "'.' with descriptions of at most 2000 characters");
    }
  }
  return {};
}

Status checkCaProviderUnique(const CaProviderList& list, const CaProvider& provider) {
  for (const auto& other : list.providers) {
    if (other.id == provider.id) continue;
    if (other.name == provider.name) {
      return Error{ErrorCode::conflict,
                   "another CA provider is named " + provider.name,
                   kInvalidField,
                   {"name"}};
    }
    if (other.directory_url == provider.directory_url) {
      return Error{ErrorCode::conflict,
                   "the CA provider " + other.name + " already has this directory_url",
                   kInvalidField,
                   {"directory_url"}};
    }
  }
  return {};
}

CaProvider* findCaProvider(CaProviderList& list, std::string_view id) noexcept {
  for (auto& p : list.providers) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

const CaProvider* findCaProvider(const CaProviderList& list, std::string_view id) noexcept {
  for (const auto& p : list.providers) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

const CaProvider* findCaProviderByUrl(const CaProviderList& list,
                                      std::string_view directoryUrl) noexcept {
  for (const auto& p : list.providers) {
    if (p.directory_url == directoryUrl) return &p;
  }
  return nullptr;
}

std::string providerNameForUrl(const CaProviderList& list, std::string_view directoryUrl) {
  std::string base = hostOf(directoryUrl);
  if (const auto* preset = findCaPresetByUrl(directoryUrl)) base = std::string(preset->name);
  if (base.size() > 90) base.resize(90);
  const auto taken = [&](const std::string& name) {
    return std::any_of(list.providers.begin(), list.providers.end(),
                       [&](const CaProvider& p) { return p.name == name; });
  };
  std::string name = base;
  for (int n = 2; taken(name) && n < 1000; ++n)
    name = base + " (" + std::to_string(n) + ")";
  return name;
}

Status checkProfile(const CaProvider& provider, std::string_view profile) {
  for (const auto& p : provider.profiles) {
    if (p.name == profile) return {};
  }
  std::string known;
  for (const auto& p : provider.profiles)
    known += (known.empty() ? "" : ", ") + p.name;
  return fieldIs(
      "profile",
      "profile " + std::string(profile) + " is not offered by " + provider.name +
          (known.empty() ? " (its directory lists no profiles)" : " (it offers " + known + ")"));
}

}  // namespace certsteward::domain
