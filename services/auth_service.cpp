// Sessions: login, refresh rotation with reuse detection, logout, authentication.
#include <certsteward/services/auth_service.hpp>

#include <algorithm>

#include <certsteward/domain/encoding.hpp>

#include <certsteward/domain/audit.hpp>
#include <certsteward/domain/text.hpp>
#include <certsteward/services/totp_codes.hpp>
#include <certsteward/services/user_service.hpp>

namespace certsteward::services {
namespace {

domain::Error badCredentials() {
  return makeError(domain::ErrorCode::unauthenticated, "invalid username or password",
                   "INVALID_CREDENTIALS");
}

}  // namespace

domain::Status AuthService::limit(const std::string& bucket, std::int64_t max) {
  return limitWindow(bucket, max, std::chrono::minutes{1});
}

domain::Status AuthService::limitWindow(const std::string& bucket, std::int64_t max,
                                        domain::Duration window) {
  auto count = p_.rateLimits.hit(bucket, window, p_.clock.now());
  if (!count) return count.error();
  if (*count > max) {
    return makeError(domain::ErrorCode::resource_exhausted, "too many attempts; wait a minute",
                     "RATE_LIMITED");
  }
  return {};
}

std::string AuthService::csrfTokenFor(const domain::Id& session) const {
  return domain::toHex(p_.csrf.sign("csrf\n" + session));
}

bool AuthService::csrfMatches(const Principal& who, const std::string& token) const {
  if (who.session.empty()) return false;
  return domain::constantTimeEquals(csrfTokenFor(who.session), token);
}

domain::Result<TokenPair> AuthService::issue(const domain::User& user, const domain::Id& family) {
  const domain::Timestamp now = p_.clock.now();
  // The access token names its session, so logging out with it ends that session.
  ports::TokenClaims access{user.id, p_.ids.next(), ports::TokenKind::access,
                            family,  now,           now + policy_.access_token_ttl};
  ports::TokenClaims refresh{user.id, p_.ids.next(), ports::TokenKind::refresh,
                             family,  now,           now + policy_.refresh_token_ttl};
  auto a = p_.tokens.encode(access);
  if (!a) return a.error();
  auto r = p_.tokens.encode(refresh);
  if (!r) return r.error();
  if (auto s = p_.refreshTokens.issue(domain::RefreshToken{refresh.token_id, family, user.id, now,
                                                           refresh.expires_at, false, false});
      !s) {
    return s.error();
  }
  return TokenPair{
      std::move(*a), std::move(*r),
      std::chrono::duration_cast<std::chrono::seconds>(policy_.access_token_ttl).count(), family};
}

domain::Result<LoginResult> AuthService::login(const std::string& username,
                                               const std::string& password,
                                               const RequestContext& ctx) {
  auto result = passwordLogin(username, password, ctx);
  if (!result && result.error().code == domain::ErrorCode::unauthenticated) {
    if (auto s = audit_.record(nullptr, ctx, "auth.login_failed", "user", "", std::nullopt,
                               "username=" + username.substr(0, 64));
        !s) {
      return s.error();
    }
  }
  return result;
}

domain::Result<LoginResult> AuthService::passwordLogin(const std::string& username,
                                                       const std::string& password,
                                                       const RequestContext& ctx) {
  if (auto s = limit("login:ip:" + ctx.ip, policy_.login_per_ip_per_minute); !s) return s.error();
  // Names are case-insensitive in directories: "Bob" and "bob" share one allowance.
  if (auto s = limit("login:user:" + domain::asciiLower(username),
                     policy_.login_per_username_per_minute);
      !s) {
    return s.error();
  }
  auto user = p_.users.getByUsername(username);
  if (!user && user.error().code != domain::ErrorCode::not_found) return user.error();
  if (!user || user->auth_source != domain::AuthSource::local) {
    // Not a local account: the directory decides, when there is one.
    auto viaDirectory = directory_ != nullptr
                            ? directory_->login(username, password)
                            : domain::Result<std::optional<domain::User>>(std::nullopt);
    if (viaDirectory && *viaDirectory) {
      return challengeOrComplete(std::move(**viaDirectory), ctx);
    }
    if (!viaDirectory && viaDirectory.error().code != domain::ErrorCode::unauthenticated) {
      return viaDirectory.error();  // unreachable, or no role
    }
    // No directory, or it refused: the same answer, in the same time, as a wrong password of a
    // local user (also for directory users while LDAP is disabled, so it reveals no names).
    spendHashTime(password);
    return badCredentials();
  }
  if (!p_.hasher.verify(password, user->password_hash) || user->disabled) return badCredentials();
  return challengeOrComplete(std::move(*user), ctx);
}

void AuthService::spendHashTime(const std::string& password) {
  std::call_once(dummyOnce_, [&] { dummyHash_ = p_.hasher.hash("not a password").value(); });
  (void)p_.hasher.verify(password, dummyHash_);
}

domain::Result<LoginResult> AuthService::challengeOrComplete(domain::User user,
                                                             const RequestContext& ctx) {
  if (user.totp_enabled) {
    const domain::Timestamp now = p_.clock.now();
    const std::string jti = p_.ids.next();
    auto session = p_.tokens.encode(
        ports::TokenClaims{user.id, jti, ports::TokenKind::otp, {}, now, now + kOtpSessionTtl});
    if (!session) return session.error();
    // Recorded so that it can be used once: verifyOtp consumes it.
    if (auto s = p_.refreshTokens.issue(
            domain::RefreshToken{jti, std::string(kOtpFamilyPrefix) + jti, user.id, now,
                                 now + kOtpSessionTtl, false, false});
        !s) {
      return s.error();
    }
    const Principal who{user, ""};
    if (auto s = audit_.record(&who, ctx, "auth.login_otp_required", "user", user.id); !s) {
      return s.error();
    }
    LoginResult challenge;
    challenge.user = std::move(user);
    challenge.otp_session_id = std::move(*session);
    return challenge;
  }
  return complete(std::move(user), ctx, "");
}

domain::Result<LoginResult> AuthService::completeExternal(const domain::User& user,
                                                          const RequestContext& ctx,
                                                          const std::string& how) {
  if (user.disabled) return badCredentials();
  return complete(user, ctx, how);
}

domain::Result<LoginResult> AuthService::complete(domain::User user, const RequestContext& ctx,
                                                  const std::string& how) {
  std::optional<LoginResult> opened;
  const domain::Status s = work_.run([&]() -> domain::Status {
    const domain::Id family = p_.ids.next();
    auto tokens = issue(user, family);
    if (!tokens) return tokens.error();
    const Principal who{user, family};
    if (auto a = audit_.record(&who, ctx, "auth.login", "user", user.id, std::nullopt, how); !a) {
      return a;
    }
    opened = LoginResult{user, std::move(*tokens), csrfTokenFor(family), {}};
    return {};
  });
  if (!s) return s.error();
  return std::move(*opened);
}

std::optional<std::int64_t> AuthService::matchingStep(const domain::User& user,
                                                      const std::string& code) {
  if (user.totp_secret_sealed.empty()) return std::nullopt;
  auto secret = p_.secrets.open(user.totp_secret_sealed);
  if (!secret) return std::nullopt;
  return matchTotp(p_.otp, *secret, code, p_.clock.now());
}

bool AuthService::codeMatches(const domain::User& user, const std::string& code) {
  return matchingStep(user, code).has_value();
}

domain::Result<LoginResult> AuthService::verifyOtp(const std::string& otpSessionId,
                                                   const std::string& code,
                                                   const RequestContext& ctx) {
  if (auto s = limit("otp:ip:" + ctx.ip, policy_.login_per_ip_per_minute); !s) return s.error();
  auto claims = p_.tokens.decode(otpSessionId, p_.clock.now());
  if (!claims || claims->kind != ports::TokenKind::otp) {
    return makeError(domain::ErrorCode::unauthenticated,
                     "the OTP session is not valid; log in again", "TOKEN_INVALID");
  }
  const auto deadSession = [] {
    return makeError(domain::ErrorCode::unauthenticated,
                     "the OTP session is not valid; log in again", "TOKEN_INVALID");
  };
  auto user = p_.users.get(claims->subject);
  if (!user || user->disabled || !user->totp_enabled) return deadSession();
  // Attempts are counted per user (across sessions and addresses) and per session; a session
  // that used up its attempts is consumed, so not even the right code opens it afterwards.
  if (auto s = limitWindow("otp:user:" + user->id, policy_.otp_attempts_per_user,
                           std::chrono::minutes{15});
      !s) {
    return s.error();
  }
  // Anchored at the session's issue time, so all of its attempts fall in one window.
  auto attempts = p_.rateLimits.hit("otp:session:" + claims->token_id, std::chrono::hours{1},
                                    claims->issued_at);
  if (!attempts) return attempts.error();
  if (*attempts > policy_.otp_attempts_per_session) {
    (void)p_.refreshTokens.consume(claims->token_id, p_.clock.now());  // dead either way
    return deadSession();
  }
  const auto step = matchingStep(*user, code);
  if (!step) {
    return makeError(domain::ErrorCode::unauthenticated, "the code is not valid",
                     "INVALID_CREDENTIALS");
  }
  // One login per OTP session: of two requests with the right code, one wins.
  if (auto consumed = p_.refreshTokens.consume(claims->token_id, p_.clock.now()); !consumed) {
    return deadSession();
  }
  // A code is accepted once: its time step must be later than the last one used, recorded on
  // the user in the same transaction that checks it.
  const domain::Status fresh = work_.run(
      [&]() -> domain::Status {
        auto current = p_.users.get(user->id);
        if (!current) return current.error();
        if (*step <= current->totp_last_step) {
          return makeError(domain::ErrorCode::unauthenticated,
                           "this code was already used; wait for the next", "INVALID_CREDENTIALS");
        }
        current->totp_last_step = *step;
        return p_.users.update(*current);
      },
      {userGuard(user->id)});
  if (!fresh) return fresh.error();
  return complete(std::move(*user), ctx, "otp");
}

domain::Status AuthService::changeUser(const domain::Id& userId, const Principal& who,
                                       const RequestContext& ctx, const char* action,
                                       const std::function<domain::Status(domain::User&)>& change) {
  return work_.run(
      [&]() -> domain::Status {
        auto user = p_.users.get(userId);
        if (!user) return user.error();
        if (auto s = change(*user); !s) return s;
        user->updated_at = p_.clock.now();
        if (auto s = p_.users.update(*user); !s) return s;
        return audit_.record(&who, ctx, action, "user", userId);
      },
      {userGuard(userId)});
}

domain::Result<TotpEnrolment> AuthService::totpSetup(const Principal& who,
                                                     const RequestContext& ctx) {
  const std::string secret = p_.random.bytes(20);
  auto sealed = p_.secrets.seal(secret);
  if (!sealed) return sealed.error();
  std::string username;
  const domain::Status done = changeUser(
      who.user.id, who, ctx, "auth.totp.setup", [&](domain::User& user) -> domain::Status {
        if (user.totp_enabled) {
          return makeError(domain::ErrorCode::failed_precondition,
                           "TOTP is already enabled; disable it first to enrol a new secret");
        }
        if (user.auth_source == domain::AuthSource::oidc) {
          return makeError(domain::ErrorCode::failed_precondition,
                           "single sign-on users set up their second factor at the identity "
                           "provider");
        }
        user.totp_secret_sealed = *sealed;
        username = user.username;
        return {};
      });
  if (!done) return done.error();
  const std::string encoded = domain::base32Encode(secret);
  return TotpEnrolment{encoded, domain::otpauthUrl("CertSteward", username, encoded)};
}

domain::Status AuthService::totpEnable(const Principal& who, const RequestContext& ctx,
                                       const std::string& code) {
  return changeUser(
      who.user.id, who, ctx, "auth.totp.enable", [&](domain::User& user) -> domain::Status {
        if (user.totp_enabled) {
          return makeError(domain::ErrorCode::failed_precondition, "TOTP is already enabled");
        }
        if (user.totp_secret_sealed.empty()) {
          return makeError(domain::ErrorCode::failed_precondition,
                           "call POST /auth/totp/setup first");
        }
        if (!codeMatches(user, code)) {
          return makeError(domain::ErrorCode::invalid_argument, "the code is not valid");
        }
        user.totp_enabled = true;
        return {};
      });
}

domain::Status AuthService::totpDisable(const Principal& who, const RequestContext& ctx,
                                        const std::string& code) {
  return changeUser(
      who.user.id, who, ctx, "auth.totp.disable", [&](domain::User& user) -> domain::Status {
        if (!user.totp_enabled) {
          return makeError(domain::ErrorCode::failed_precondition, "TOTP is not enabled");
        }
        if (!codeMatches(user, code)) {
          return makeError(domain::ErrorCode::invalid_argument, "the code is not valid");
        }
        user.totp_enabled = false;
        user.totp_secret_sealed.clear();
        return {};
      });
}

domain::Result<TokenPair> AuthService::refresh(const std::string& refreshToken,
                                               const std::string& clientIp,
                                               const std::optional<std::string>& csrfToken) {
  if (auto s = limit("refresh:ip:" + clientIp, policy_.login_per_ip_per_minute); !s) {
    return s.error();
  }
  auto claims = p_.tokens.decode(refreshToken, p_.clock.now());
  if (!claims) return claims.error();
  if (claims->kind != ports::TokenKind::refresh) {
    return makeError(domain::ErrorCode::unauthenticated, "not a refresh token", "TOKEN_INVALID");
  }
  if (csrfToken && !csrfMatches(Principal{{}, claims->family_id}, *csrfToken)) {
    return makeError(domain::ErrorCode::permission_denied, "missing or wrong X-CSRF-Token");
  }
  auto consumed = p_.refreshTokens.consume(claims->token_id, p_.clock.now());
  if (!consumed) return consumed.error();
  auto user = p_.users.get(consumed->user_id);
  // A refresh token issued before the password, role or status changed is as dead as the
  // access tokens of that time, even if the revocation of the user's tokens was missed.
  if (!user || user->disabled || claims->issued_at < user->tokens_valid_after) {
    (void)p_.refreshTokens.revokeFamily(consumed->family_id);
    return makeError(domain::ErrorCode::unauthenticated, "the user cannot log in", "TOKEN_INVALID");
  }
  if (user->auth_source == domain::AuthSource::oidc &&
      (sso_ == nullptr || !sso_->stillAllowed(*user))) {
    (void)p_.refreshTokens.revokeFamily(consumed->family_id);
    return makeError(domain::ErrorCode::unauthenticated,
                     "single sign-on is disabled or now uses another provider; sign in again",
                     "TOKEN_INVALID");
  }
  if (user->auth_source == domain::AuthSource::ldap && directory_ != nullptr) {
    // A session of a directory user lasts while the directory still lets them in.
    auto checked = directory_->recheck(*user);
    if (!checked) {
      (void)p_.refreshTokens.revokeFamily(consumed->family_id);
      return checked.error();
    }
    return issueUnlessChanged(*checked, consumed->family_id, claims->issued_at);
  }
  return issueUnlessChanged(*user, consumed->family_id, claims->issued_at);
}

domain::Result<TokenPair> AuthService::issueUnlessChanged(const domain::User& user,
                                                          const domain::Id& family,
                                                          domain::Timestamp presentedAt) {
  auto pair = issue(user, family);
  if (!pair) return pair;
  // A password change that committed between the read above and this issue listed the family
  // while it had no live token, so it did not end it: read the user again, and end it now.
  auto now = p_.users.get(user.id);
  if (!now || now->disabled || presentedAt < now->tokens_valid_after) {
    (void)p_.refreshTokens.revokeFamily(family);
    return makeError(domain::ErrorCode::unauthenticated, "the user cannot log in", "TOKEN_INVALID");
  }
  return pair;
}

domain::Status AuthService::logout(const Principal& who, const RequestContext& ctx,
                                   const std::optional<std::string>& refreshToken) {
  if (refreshToken) {
    auto claims = p_.tokens.decode(*refreshToken, p_.clock.now());
    // Only the caller's own session: a token of another user is ignored, never revoked.
    if (claims && claims->kind == ports::TokenKind::refresh && !claims->family_id.empty() &&
        claims->subject == who.user.id) {
      if (auto s = p_.refreshTokens.revokeFamily(claims->family_id); !s) return s;
    }
  }
  if (!who.session.empty()) {
    if (auto s = p_.refreshTokens.revokeFamily(who.session); !s) return s;
  }
  // The access token of the session is refused from now on, until it would have expired.
  return changeUser(who.user.id, who, ctx, "auth.logout",
                    [&](domain::User& user) -> domain::Status {
                      if (!who.session.empty()) endSessionOf(user, who.session);
                      return {};
                    });
}

void AuthService::endSessionOf(domain::User& user, const domain::Id& session) const {
  const domain::Timestamp now = p_.clock.now();
  std::erase_if(user.ended_sessions, [&](const domain::EndedSession& e) { return e.until <= now; });
  if (user.ended_sessions.size() >= 256) user.ended_sessions.erase(user.ended_sessions.begin());
  user.ended_sessions.push_back(domain::EndedSession{session, now + policy_.access_token_ttl});
}

domain::Result<Principal> AuthService::authenticate(const std::string& accessToken) {
  auto claims = p_.tokens.decode(accessToken, p_.clock.now());
  if (!claims) return claims.error();
  if (claims->kind != ports::TokenKind::access) {
    return makeError(domain::ErrorCode::unauthenticated,
                     "only an access token authenticates a request", "TOKEN_INVALID");
  }
  auto user = p_.users.get(claims->subject);
  if (!user) {
    if (user.error().code == domain::ErrorCode::not_found) {
      return makeError(domain::ErrorCode::unauthenticated, "the user no longer exists",
                       "TOKEN_INVALID");
    }
    return user.error();
  }
  if (user->disabled) {
    return makeError(domain::ErrorCode::unauthenticated, "the user is disabled", "TOKEN_INVALID");
  }
  if (claims->issued_at < user->tokens_valid_after) {
    return makeError(domain::ErrorCode::unauthenticated,
                     "the session ended when the password, role or status changed; log in again",
                     "TOKEN_INVALID");
  }
  for (const auto& ended : user->ended_sessions) {
    if (ended.family_id == claims->family_id) {
      return makeError(domain::ErrorCode::unauthenticated, "the session was logged out",
                       "TOKEN_INVALID");
    }
  }
  return Principal{std::move(*user), claims->family_id};
}

domain::Result<LoginResult> AuthService::changeOwnPassword(const Principal& who,
                                                           const RequestContext& ctx,
                                                           const std::string& current,
                                                           const std::string& next) {
  if (who.user.auth_source != domain::AuthSource::local) {
    return makeError(
        domain::ErrorCode::failed_precondition,
        "your password is kept by the " +
            std::string(who.user.auth_source == domain::AuthSource::ldap ? "directory"
                                                                         : "identity provider") +
            "; change it there",
        "EXTERNAL_ACCOUNT");
  }
  if (auto s = limit("password:user:" + who.user.id, 5); !s) return s.error();
  auto stored = p_.users.get(who.user.id);
  if (!stored) return stored.error();
  if (!p_.hasher.verify(current, stored->password_hash)) {
    return domain::fieldError("current_password is not your current password");
  }
  if (auto s = validatePassword(next); !s) {
    return domain::fieldError("new_password must be 8 to 72 bytes long");
  }
  if (next == current) return domain::fieldError("new_password is the current password");
  auto hash = p_.hasher.hash(next);  // before the transaction: it takes ~0.2 s
  if (!hash) return hash.error();
  std::optional<LoginResult> opened;
  const domain::Status done = work_.run(
      [&]() -> domain::Status {
        auto user = p_.users.get(who.user.id);
        if (!user) return user.error();
        const domain::Timestamp now = p_.clock.now();
        user->password_hash = *hash;
        user->updated_at = now;
        // Every access token issued before now stops working, this session's too.
        user->tokens_valid_after = now;
        if (auto s = p_.users.update(*user); !s) return s;
        const domain::Id family = p_.ids.next();
        auto tokens = issue(*user, family);
        if (!tokens) return tokens.error();
        const Principal renewed{*user, family};
        if (auto a = audit_.record(&renewed, ctx, "user.password_change", "user", user->id); !a) {
          return a;
        }
        opened = LoginResult{*user, std::move(*tokens), csrfTokenFor(family), {}};
        return {};
      },
      {userGuard(who.user.id)});
  if (!done) return done.error();
  // Refresh tokens are outside transactions (ports::Store): every other family ends now; one
  // missed here still fails its next refresh, issued before tokens_valid_after.
  // A failure here fails no one: the password changed, and tokens_valid_after refuses the old
  // sessions' tokens at their next use anyway.
  if (auto live = p_.refreshTokens.sessionsOf(who.user.id, p_.clock.now())) {
    for (const auto& s : *live) {
      if (s.family_id != opened->tokens.refresh_family)
        (void)p_.refreshTokens.revokeFamily(s.family_id);
    }
  }
  return std::move(*opened);
}

domain::Result<std::vector<domain::SessionSummary>> AuthService::signedIn(
    const domain::Id& userId) {
  auto live = p_.refreshTokens.sessionsOf(userId, p_.clock.now());
  if (!live) return live.error();
  // A login waiting for its second factor is kept as a family of its own: not a session yet.
  std::erase_if(*live, [](const domain::SessionSummary& s) {
    return s.family_id.starts_with(kOtpFamilyPrefix);
  });
  return live;
}

domain::Result<std::vector<AuthService::OwnSession>> AuthService::sessions(const Principal& who) {
  auto live = signedIn(who.user.id);
  if (!live) return live.error();
  std::vector<OwnSession> out;
  for (auto& s : *live) {
    const bool current = !who.session.empty() && s.family_id == who.session;
    out.push_back({std::move(s), current});
  }
  return out;
}

domain::Status AuthService::endSession(const Principal& who, const RequestContext& ctx,
                                       const domain::Id& sessionId) {
  auto live = signedIn(who.user.id);
  if (!live) return live.error();
  if (std::none_of(live->begin(), live->end(),
                   [&](const domain::SessionSummary& s) { return s.family_id == sessionId; })) {
    return makeError(domain::ErrorCode::not_found, "no such session of yours");
  }
  if (sessionId == who.session) return logout(who, ctx, std::nullopt);
  if (auto s = p_.refreshTokens.revokeFamily(sessionId); !s) return s;
  // Its access token is refused from now on too, as a logout's is.
  return changeUser(who.user.id, who, ctx, "auth.session_end",
                    [&](domain::User& user) -> domain::Status {
                      endSessionOf(user, sessionId);
                      return {};
                    });
}

}  // namespace certsteward::services
