// AuthService: login, token refresh with single-use refresh tokens in families, logout, and the
// authentication of access tokens. Applies the login and refresh rate limits of docs/api.md
// (Authentication) through the store's counters, so they hold across instances.
#pragma once

#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/mac.hpp>
#include <certsteward/ports/otp_hasher.hpp>
#include <certsteward/ports/password_hasher.hpp>
#include <certsteward/ports/random.hpp>
#include <certsteward/ports/rate_limit_counter.hpp>
#include <certsteward/ports/refresh_token_store.hpp>
#include <certsteward/ports/secret_box.hpp>
#include <certsteward/ports/token_codec.hpp>
#include <certsteward/ports/user_repository.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/directory_login.hpp>
#include <certsteward/services/oidc_login.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

struct AuthPolicy {
  domain::Duration access_token_ttl = std::chrono::minutes{15};
  domain::Duration refresh_token_ttl = std::chrono::days{7};
  std::int64_t login_per_ip_per_minute = 10;  // also refresh and OTP verify
  std::int64_t login_per_username_per_minute = 5;
  std::int64_t otp_attempts_per_session = 5;  // then the OTP session is dead
  std::int64_t otp_attempts_per_user = 10;    // per 15 minutes, across sessions
};

struct TokenPair {
  std::string access_token;
  std::string refresh_token;
  std::int64_t expires_in = 0;  // seconds, of the access token
  std::string refresh_family;
};

struct LoginResult {
  domain::User user;
  TokenPair tokens;  // empty when a second factor is required
  std::string csrf_token;
  std::string otp_session_id;  // set instead of tokens when the user has TOTP enabled
};

struct TotpEnrolment {
  std::string secret;  // base32, for manual entry
  std::string otpauth_url;
};

inline constexpr domain::Duration kOtpSessionTtl = std::chrono::minutes{5};
// The refresh-token family of a login waiting for its second factor: "otp:<jti>".
inline constexpr std::string_view kOtpFamilyPrefix = "otp:";

class AuthService {
 public:
  struct Ports {
    ports::UserRepository& users;
    ports::RefreshTokenStore& refreshTokens;
    ports::RateLimitCounter& rateLimits;
    ports::PasswordHasher& hasher;
    ports::TokenCodec& tokens;
    ports::IdGenerator& ids;
    ports::Random& random;
    const ports::Clock& clock;
    ports::SecretBox& secrets;
    const ports::OtpHasher& otp;
    const ports::Mac& csrf;  // binds CSRF tokens to sessions
  };

  // Read-modify-writes of a user (logout, TOTP) run in `work`'s transactions under the user's
  // guard, with their audit entries.
  // With `directory`, users unknown here or with auth_source ldap log in through it; with
  // `sso`, the sessions of oidc users are renewed only while single sign-on allows them.
  AuthService(Ports ports, AuthPolicy policy, UnitOfWork& work, AuditService& audit,
              DirectoryLogin* directory = nullptr, const OidcLogin* sso = nullptr)
      : p_(ports), policy_(policy), work_(work), audit_(audit), directory_(directory), sso_(sso) {}

  // unauthenticated "invalid username or password" for any wrong detail (no user enumeration);
  // resource_exhausted/RATE_LIMITED past the limits. A username unknown here, or of a directory
  // user, is checked by the directory when one is configured (see DirectoryLogin::login):
  // unavailable with DIRECTORY_UNREACHABLE when it cannot be reached, permission_denied NO_ROLE
  // when the user's groups grant no role.
  // Audited: auth.login_failed (for unauthenticated), auth.login_otp_required, and auth.login in
  // the same transaction as the session, so there is no session without its entry.
  domain::Result<LoginResult> login(const std::string& username, const std::string& password,
                                    const RequestContext& ctx);

  // A session for a user whom an identity provider (OIDC) has just authenticated: the same
  // tokens and CSRF token as a password login, no OTP step (the provider owns the second factor).
  // unauthenticated for a disabled user.
  // auth.login (details `how`) is audited with the session, as for a password login.
  domain::Result<LoginResult> completeExternal(const domain::User& user, const RequestContext& ctx,
                                               const std::string& how);

  // Consumes a refresh token and issues the next pair of its family. unauthenticated with
  // TOKEN_INVALID, TOKEN_EXPIRED or TOKEN_REUSE (the family is then revoked). A directory user's
  // session is renewed only while the directory still lists them (DirectoryLogin::recheck). With
  // `csrfToken` (a cookie refresh) it must be the CSRF token of the token's session:
  // permission_denied.
  domain::Result<TokenPair> refresh(const std::string& refreshToken, const std::string& clientIp,
                                    const std::optional<std::string>& csrfToken = std::nullopt);

  // Ends the caller's session: the refresh-token family of their access token is revoked and
  // that access token is refused from now on. A refresh token given as well has its family
  // revoked only when it is the caller's own (invalid or foreign tokens are ignored).
  domain::Status logout(const Principal& who, const RequestContext& ctx,
                        const std::optional<std::string>& refreshToken);

  // The principal of an access token. unauthenticated with TOKEN_INVALID (also for a refresh
  // token, a disabled/deleted user, a token issued before the user's password, role or status
  // last changed, or one whose session was logged out) or TOKEN_EXPIRED.
  domain::Result<Principal> authenticate(const std::string& accessToken);

  // The CSRF token of a session: a MAC of its refresh-token family, so a cookie/header pair
  // passes only for the session it was issued to.
  std::string csrfTokenFor(const domain::Id& session) const;
  // Whether `token` is the CSRF token of the caller's session (constant time).
  bool csrfMatches(const Principal& who, const std::string& token) const;

  // The caller's own password (local users only; a directory or SSO user's is kept there:
  // failed_precondition EXTERNAL_ACCOUNT). `current` must be right (invalid_argument naming
  // current_password; at most 5 tries a minute per user, then RATE_LIMITED); `next` follows the
  // password rule (invalid_argument naming new_password). Every session of the user ends,
  // this one included, and this caller gets a new one (the answer carries its tokens, as a
  // login's does). Audited user.password_change with the new session.
  domain::Result<LoginResult> changeOwnPassword(const Principal& who, const RequestContext& ctx,
                                                const std::string& current,
                                                const std::string& next);

  // The caller's live sessions, oldest first; `current` marks the one of the calling token.
  struct OwnSession {
    domain::SessionSummary summary;
    bool current = false;
  };
  domain::Result<std::vector<OwnSession>> sessions(const Principal& who);
  // Ends one of the caller's own sessions (not_found for any other id). Ending the current one
  // is a logout. Audited auth.session_end.
  domain::Status endSession(const Principal& who, const RequestContext& ctx,
                            const domain::Id& sessionId);

  // Second step of a login with TOTP: the otp_session_id of the first step and a code.
  // unauthenticated for a wrong code or session; RATE_LIMITED past 10 per minute per address or
  // past otp_attempts_per_user in 15 minutes. An OTP session is single use and dies after
  // otp_attempts_per_session attempts; a code is accepted once per time step.
  // The session is audited as auth.login ("otp") with it.
  domain::Result<LoginResult> verifyOtp(const std::string& otpSessionId, const std::string& code,
                                        const RequestContext& ctx);

  // TOTP enrolment of the caller: a new secret (sealed at rest) that becomes active once
  // enable() sees a valid code. failed_precondition when TOTP is already enabled.
  domain::Result<TotpEnrolment> totpSetup(const Principal& who, const RequestContext& ctx);
  // invalid_argument (422) for a wrong code; failed_precondition without a pending setup.
  domain::Status totpEnable(const Principal& who, const RequestContext& ctx,
                            const std::string& code);
  domain::Status totpDisable(const Principal& who, const RequestContext& ctx,
                             const std::string& code);

 private:
  domain::Status limit(const std::string& bucket, std::int64_t max);  // per minute
  domain::Status limitWindow(const std::string& bucket, std::int64_t max, domain::Duration window);
  // The time step of `code` for the user's TOTP secret, if it is valid now.
  std::optional<std::int64_t> matchingStep(const domain::User& user, const std::string& code);
  // A session for `user` and its auth.login audit entry (details `how`), in one transaction.
  domain::Result<LoginResult> complete(domain::User user, const RequestContext& ctx,
                                       const std::string& how);
  // The second step of a login whose password was right: an OTP challenge or the session.
  domain::Result<LoginResult> challengeOrComplete(domain::User user, const RequestContext& ctx);
  // login() before its failure is audited.
  domain::Result<LoginResult> passwordLogin(const std::string& username,
                                            const std::string& password, const RequestContext& ctx);
  // Spends a password check's time on nothing, so refusals take as long as a wrong password.
  void spendHashTime(const std::string& password);
  bool codeMatches(const domain::User& user, const std::string& code);
  domain::Result<TokenPair> issue(const domain::User& user, const domain::Id& family);
  // The next pair of a refreshed family, unless the user changed (password, status) since the
  // token presented (`presentedAt`) was issued: then the family ends.
  domain::Result<TokenPair> issueUnlessChanged(const domain::User& user, const domain::Id& family,
                                               domain::Timestamp presentedAt);
  // The user's live sessions, second-factor logins not yet completed left out.
  domain::Result<std::vector<domain::SessionSummary>> signedIn(const domain::Id& userId);
  // Records that the access tokens of `session` are refused until they would have expired.
  void endSessionOf(domain::User& user, const domain::Id& session) const;

  // Re-reads the user inside one transaction under its guard, applies `change` (which may refuse)
  // and writes it back with the audit entry `action`: concurrent changes of one user never undo
  // each other.
  domain::Status changeUser(const domain::Id& userId, const Principal& who,
                            const RequestContext& ctx, const char* action,
                            const std::function<domain::Status(domain::User&)>& change);

  Ports p_;
  AuthPolicy policy_;
  UnitOfWork& work_;
  AuditService& audit_;
  DirectoryLogin* directory_;
  const OidcLogin* sso_;
  std::once_flag dummyOnce_;
  std::string dummyHash_;
};

}  // namespace certsteward::services
