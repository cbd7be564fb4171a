// Single sign-on: the login state, the provider's answer, the user.
#include <certsteward/services/oidc_login.hpp>

#include <algorithm>
#include <charconv>

#include <certsteward/domain/encoding.hpp>
#include <certsteward/domain/text.hpp>
#include <certsteward/services/external_accounts.hpp>

namespace certsteward::services {
namespace {

// `reason` is what the sign-in page is told (a fixed code: nobody can put words there); the
// message, for the audit log and the API's callers, says more.
domain::Error refused(const char* reason, const std::string& why) {
  return makeError(domain::ErrorCode::unauthenticated, "single sign-on failed: " + why, reason);
}

// The provider's error code as it may be repeated: a short token of [a-z_], else "error".
std::string errorCode(const std::string& text) {
  const bool plain = !text.empty() && text.size() <= 40 &&
                     std::all_of(text.begin(), text.end(),
                                 [](char c) { return (c >= 'a' && c <= 'z') || c == '_'; });
  return plain ? text : "error";
}

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto end = text.find('\n', start);
    out.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace

domain::Result<OidcOffer> OidcLogin::offer() const {
  auto stored = p_.settings.get();
  if (!stored) return stored.error();
  if (!*stored || !(*stored)->enabled) return OidcOffer{};
  return OidcOffer{true, (*stored)->display_name};
}

domain::Result<std::pair<domain::OidcSettings, std::string>> OidcLogin::enabledSettings() const {
  auto stored = p_.settings.get();
  if (!stored) return stored.error();
  if (!*stored || !(*stored)->enabled) {
    return makeError(domain::ErrorCode::failed_precondition, "single sign-on is not enabled here",
                     "SSO_DISABLED");
  }
  std::string secret;
  if (!(*stored)->client_secret_sealed.empty()) {
    auto opened = p_.secrets.open((*stored)->client_secret_sealed);
    if (!opened) {
      return makeError(domain::ErrorCode::unavailable,
                       "the OIDC client secret cannot be decrypted (was the server's secret key "
                       "changed?); save it again in the OIDC settings");
    }
    secret = std::move(*opened);
  }
  return std::pair{std::move(**stored), std::move(secret)};
}

domain::Result<OidcStart> OidcLogin::start(const std::string& clientIp) {
  if (auto st = limit(clientIp); !st) return st.error();
  auto settings = enabledSettings();
  if (!settings) return settings.error();
  auto provider = p_.provider.discover(settings->first);
  if (!provider) return provider.error();
  const ports::OidcLoginRequest login{domain::base64UrlEncode(p_.random.bytes(32)),
                                      domain::base64UrlEncode(p_.random.bytes(32)),
                                      domain::base64UrlEncode(p_.random.bytes(32))};
  const auto expires = domain::unixSeconds(p_.clock.now() + kOidcLoginTtl);
  auto sealed = p_.secrets.seal("oidc-login-v1\n" + login.state + "\n" + login.nonce + "\n" +
                                login.code_verifier + "\n" + std::to_string(expires));
  if (!sealed) return sealed.error();
  return OidcStart{p_.provider.authorizationUrl(*provider, settings->first, login),
                   std::move(*sealed)};
}

domain::Status OidcLogin::limit(const std::string& clientIp) {
  auto count = p_.rateLimits.hit("sso:ip:" + clientIp, std::chrono::minutes{1}, p_.clock.now());
  if (!count) return count.error();
  if (*count > kOidcStepsPerMinute) {
    return makeError(domain::ErrorCode::resource_exhausted,
                     "too many single sign-on attempts from this address; wait a minute",
                     "RATE_LIMITED");
  }
  return {};
}

bool OidcLogin::stillAllowed(const domain::User& user) const {
  auto stored = p_.settings.get();
  if (!stored) return true;  // the settings cannot be read now: as an outage
  return *stored && (*stored)->enabled &&
         user.external_subject.starts_with((*stored)->issuer + " ");
}

domain::Result<domain::User> OidcLogin::finish(const std::string& code, const std::string& state,
                                               const std::string& loginState,
                                               const std::string& providerError,
                                               const RequestContext& ctx) {
  if (auto st = limit(ctx.ip); !st) return st.error();
  auto settings = enabledSettings();
  if (!settings) return settings.error();
  const auto& [s, secret] = *settings;
  if (loginState.empty()) {
    return refused("SSO_NO_LOGIN",
                   "this browser did not start the sign-in (no login cookie); start again");
  }
  auto opened = p_.secrets.open(loginState);
  const auto parts = opened ? splitLines(*opened) : std::vector<std::string>{};
  if (parts.size() != 5 || parts[0] != "oidc-login-v1") {
    return refused("SSO_LOGIN_INVALID", "the login cookie is not valid; start again");
  }
  std::int64_t expires = 0;
  const auto& e = parts[4];
  if (std::from_chars(e.data(), e.data() + e.size(), expires).ec != std::errc{} ||
      expires <= domain::unixSeconds(p_.clock.now())) {
    return refused("SSO_EXPIRED", "the sign-in took longer than 10 minutes; start again");
  }
  const ports::OidcLoginRequest login{parts[1], parts[2], parts[3]};
  if (state.empty() || !domain::constantTimeEquals(state, login.state)) {
    return refused("SSO_STATE_MISMATCH",
                   "the provider's answer does not belong to this sign-in (state mismatch)");
  }
  // Only an answer that belongs to this sign-in may say the provider refused it.
  if (!providerError.empty()) {
    return refused("SSO_PROVIDER_REFUSED",
                   "the identity provider refused the sign-in (" + errorCode(providerError) + ")");
  }
  if (code.empty()) return refused("SSO_NO_CODE", "the provider sent no code");
  auto provider = p_.provider.discover(s);
  if (!provider) return provider.error();
  auto identity = p_.provider.redeem(*provider, s, secret, login, code);
  if (!identity) {
    if (identity.error().code == domain::ErrorCode::unauthenticated) {
      return refused(
          identity.error().reason == "IDP_REFUSED" ? "SSO_PROVIDER_REFUSED" : "SSO_TOKEN_INVALID",
          identity.error().message);
    }
    return identity.error();
  }
  const auto claim = identity->claims.find(s.username_claim);
  const std::string name = claim == identity->claims.end() || claim->second.empty()
                               ? std::string()
                               : domain::asciiLower(claim->second.front());
  if (!domain::isValidUsername(name)) {
    return refused("SSO_USERNAME_UNUSABLE",
                   "the provider's " + s.username_claim +
                       " claim is missing or not a usable username (1 to 64 of a-z, 0-9, '.', '_', "
                       "'@', '-'); ask an owner to change username_claim");
  }
  // An email address names a person only once the provider has verified it.
  if (s.username_claim == "email") {
    const auto verified = identity->claims.find("email_verified");
    if (verified == identity->claims.end() ||
        verified->second != std::vector<std::string>{"true"}) {
      return refused("SSO_EMAIL_UNVERIFIED",
                     "the provider has not verified the email address that names you here");
    }
  }
  std::vector<std::string> groups;
  if (!s.groups_claim.empty()) {
    if (const auto it = identity->claims.find(s.groups_claim); it != identity->claims.end()) {
      groups = it->second;
    }
  }
  const auto role = mapOidcRole(s, groups);
  if (!role) {
    return makeError(domain::ErrorCode::permission_denied,
                     "your account at the identity provider is in no group that grants a role "
                     "here; ask an owner to map one of your groups in the OIDC settings",
                     "NO_ROLE");
  }
  const std::string subject = s.issuer + " " + identity->subject;
  return upsertExternalAccount(
      {p_.users, p_.ids, p_.clock}, work_, audit_, ctx,
      {name, domain::AuthSource::oidc, subject, *role, "identity provider groups"},
      [&](const domain::User& existing) -> domain::Status {
        if (existing.auth_source != domain::AuthSource::oidc) {
          return refused("SSO_ACCOUNT_CONFLICT",
                         "an account named " + name +
                             " exists here that does not sign in through the identity provider");
        }
        if (existing.external_subject != subject) {
          return refused("SSO_SUBJECT_MISMATCH", "the account " + name +
                                                     " belongs to another person at the identity "
                                                     "provider");
        }
        if (existing.disabled) {
          return refused("SSO_USER_DISABLED", "the account " + name + " is disabled here");
        }
        return {};
      });
}

}  // namespace certsteward::services
