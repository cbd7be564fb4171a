// OidcLogin: single sign-on through the org's OpenID Connect provider. start() begins a login:
// fresh state, nonce and PKCE verifier, sealed into a short-lived value the browser keeps (a
// cookie) and the provider's URL to send it to. finish() takes the provider's answer and that
// value back: the state must match (a forged or replayed callback fails), the code is exchanged
// and the ID token verified (signature, issuer, audience, expiry, nonce), then the person is
// mapped to a user with auth_source oidc — created at the first login, the role from the groups
// claim applied at every login. A local or directory account of the same name, an account bound
// to another subject of the provider, or a disabled user are refused.
#pragma once

#include <string>

#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/identity_provider.hpp>
#include <certsteward/ports/random.hpp>
#include <certsteward/ports/rate_limit_counter.hpp>
#include <certsteward/ports/secret_box.hpp>
#include <certsteward/ports/settings_documents.hpp>
#include <certsteward/ports/user_repository.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

inline constexpr domain::Duration kOidcLoginTtl = std::chrono::minutes{10};
// Starts and callbacks per client address and minute (each waits on the provider).
inline constexpr std::int64_t kOidcStepsPerMinute = 20;

struct OidcStart {
  std::string provider_url;  // where to send the browser
  std::string login_state;   // sealed; the browser brings it back (HttpOnly cookie)
};

// What the login page offers: whether SSO is on, and its button's name.
struct OidcOffer {
  bool enabled = false;
  std::string display_name;
};

class OidcLogin {
 public:
  struct Ports {
    ports::OidcSettingsRepository& settings;
    ports::IdentityProvider& provider;
    ports::SecretBox& secrets;
    ports::Random& random;
    ports::UserRepository& users;
    ports::IdGenerator& ids;
    const ports::Clock& clock;
    ports::RateLimitCounter& rateLimits;
  };

  OidcLogin(Ports ports, UnitOfWork& work, AuditService& audit)
      : p_(ports), work_(work), audit_(audit) {}

  domain::Result<OidcOffer> offer() const;

  /**
   * failed_precondition when SSO is not enabled; unavailable when the provider is down;
   * resource_exhausted past kOidcStepsPerMinute from `clientIp`.
   */
  domain::Result<OidcStart> start(const std::string& clientIp);

  /**
   * unauthenticated for a missing, expired or foreign login state, a state that does not
   * match, the provider's `providerError` (heard only for an answer that belongs to this
   * sign-in), a refused code or ID token, an unverified email as the username, or an account
   * that may not sign in this way — the message says what went wrong, the reason is a fixed
   * code (SSO_STATE_MISMATCH, SSO_TOKEN_INVALID, SSO_ACCOUNT_CONFLICT, ...) for the sign-in
   * page; permission_denied NO_ROLE when no group grants a role and deny is set; unavailable
   * when the provider cannot be reached; resource_exhausted as for start (by ctx.ip).
   */
  domain::Result<domain::User> finish(const std::string& code, const std::string& state,
                                      const std::string& loginState,
                                      const std::string& providerError, const RequestContext& ctx);

  // Whether an SSO user's session may be renewed: SSO still enabled, with the issuer the
  // account is bound to.
  bool stillAllowed(const domain::User& user) const;

 private:
  domain::Result<std::pair<domain::OidcSettings, std::string>> enabledSettings() const;
  domain::Status limit(const std::string& clientIp);

  Ports p_;
  UnitOfWork& work_;
  AuditService& audit_;
};

}  // namespace certsteward::services
