// Sessions: login, refresh rotation with reuse detection, logout, authentication.
#include "domain/services/auth_service.hpp"

#include "domain/audit.hpp"
#include "domain/totp.hpp"

namespace certsteward::domain {
namespace {

Error badCredentials() {
  return makeError(ErrorCode::unauthenticated, "invalid username or password",
                   "INVALID_CREDENTIALS");
}

}  // namespace

Status AuthService::limit(const std::string& bucket, std::int64_t max) {
  auto count = p_.rateLimits.hit(bucket, std::chrono::minutes{1}, p_.clock.now());
  if (!count) return count.error();
  if (*count > max) {
    return makeError(ErrorCode::resource_exhausted, "too many attempts; wait a minute",
                     "RATE_LIMITED");
  }
  return {};
}

std::string AuthService::newCsrfToken() {
  return toHex(p_.random.bytes(32));
}

Result<TokenPair> AuthService::issue(const User& user, const Id& family) {
  const Timestamp now = p_.clock.now();
  ports::TokenClaims access{user.id, p_.ids.next(), ports::TokenKind::access,
                            {},      now,           now + policy_.access_token_ttl};
  ports::TokenClaims refresh{user.id, p_.ids.next(), ports::TokenKind::refresh,
                             family,  now,           now + policy_.refresh_token_ttl};
  auto a = p_.tokens.encode(access);
  if (!a) return a.error();
  auto r = p_.tokens.encode(refresh);
  if (!r) return r.error();
  if (auto s = p_.refreshTokens.issue(
          RefreshToken{refresh.token_id, family, user.id, now, refresh.expires_at, false, false});
      !s) {
    return s.error();
  }
  return TokenPair{
      std::move(*a), std::move(*r),
      std::chrono::duration_cast<std::chrono::seconds>(policy_.access_token_ttl).count(), family};
}

Result<LoginResult> AuthService::login(const std::string& username, const std::string& password,
                                       const std::string& clientIp) {
  if (auto s = limit("login:ip:" + clientIp, policy_.login_per_ip_per_minute); !s) return s.error();
  if (auto s = limit("login:user:" + username, policy_.login_per_username_per_minute); !s) {
    return s.error();
  }
  auto user = p_.users.getByUsername(username);
  if (!user) {
    if (user.error().code != ErrorCode::not_found) return user.error();
    // Verifying against a real hash when the user does not exist keeps the answer time the
    // same, so response times do not reveal which usernames exist.
    std::call_once(dummyOnce_, [&] { dummyHash_ = p_.hasher.hash("not a password").value(); });
    (void)p_.hasher.verify(password, dummyHash_);
    return badCredentials();
  }
  if (user->auth_source == AuthSource::ldap) {
    return makeError(ErrorCode::unavailable,
                     "directory login is not available: no LDAP server is configured");
  }
  if (!p_.hasher.verify(password, user->password_hash) || user->disabled) return badCredentials();
  if (user->totp_enabled) {
    const Timestamp now = p_.clock.now();
    auto session = p_.tokens.encode(ports::TokenClaims{
        user->id, p_.ids.next(), ports::TokenKind::otp, {}, now, now + kOtpSessionTtl});
    if (!session) return session.error();
    LoginResult challenge;
    challenge.user = std::move(*user);
    challenge.otp_session_id = std::move(*session);
    return challenge;
  }
  return complete(std::move(*user));
}

Result<LoginResult> AuthService::complete(User user) {
  auto tokens = issue(user, p_.ids.next());
  if (!tokens) return tokens.error();
  return LoginResult{std::move(user), std::move(*tokens), newCsrfToken(), {}};
}

bool AuthService::codeMatches(const User& user, const std::string& code) {
  if (user.totp_secret_sealed.empty()) return false;
  auto secret = p_.secrets.open(user.totp_secret_sealed);
  return secret && verifyTotp(p_.otp, *secret, code, p_.clock.now());
}

Result<LoginResult> AuthService::verifyOtp(const std::string& otpSessionId, const std::string& code,
                                           const std::string& clientIp) {
  if (auto s = limit("otp:ip:" + clientIp, policy_.login_per_ip_per_minute); !s) return s.error();
  auto claims = p_.tokens.decode(otpSessionId, p_.clock.now());
  if (!claims || claims->kind != ports::TokenKind::otp) {
    return makeError(ErrorCode::unauthenticated, "the OTP session is not valid; log in again",
                     "TOKEN_INVALID");
  }
  auto user = p_.users.get(claims->subject);
  if (!user || user->disabled || !user->totp_enabled) {
    return makeError(ErrorCode::unauthenticated, "the OTP session is not valid; log in again",
                     "TOKEN_INVALID");
  }
  if (!codeMatches(*user, code)) {
    return makeError(ErrorCode::unauthenticated, "the code is not valid", "INVALID_CREDENTIALS");
  }
  return complete(std::move(*user));
}

Result<TotpEnrolment> AuthService::totpSetup(const Principal& who) {
  auto user = p_.users.get(who.user.id);
  if (!user) return user.error();
  if (user->totp_enabled) {
    return makeError(ErrorCode::failed_precondition,
                     "TOTP is already enabled; disable it first to enrol a new secret");
  }
  const std::string secret = p_.random.bytes(20);
  auto sealed = p_.secrets.seal(secret);
  if (!sealed) return sealed.error();
  user->totp_secret_sealed = std::move(*sealed);
  user->updated_at = p_.clock.now();
  if (auto s = p_.users.update(*user); !s) return s.error();
  const std::string encoded = base32Encode(secret);
  return TotpEnrolment{encoded, otpauthUrl("CertSteward", user->username, encoded)};
}

Status AuthService::totpEnable(const Principal& who, const std::string& code) {
  auto user = p_.users.get(who.user.id);
  if (!user) return user.error();
  if (user->totp_enabled)
    return makeError(ErrorCode::failed_precondition, "TOTP is already enabled");
  if (user->totp_secret_sealed.empty()) {
    return makeError(ErrorCode::failed_precondition, "call POST /auth/totp/setup first");
  }
  if (!codeMatches(*user, code))
    return makeError(ErrorCode::invalid_argument, "the code is not valid");
  user->totp_enabled = true;
  user->updated_at = p_.clock.now();
  return p_.users.update(*user);
}

Status AuthService::totpDisable(const Principal& who, const std::string& code) {
  auto user = p_.users.get(who.user.id);
  if (!user) return user.error();
  if (!user->totp_enabled) return makeError(ErrorCode::failed_precondition, "TOTP is not enabled");
  if (!codeMatches(*user, code))
    return makeError(ErrorCode::invalid_argument, "the code is not valid");
  user->totp_enabled = false;
  user->totp_secret_sealed.clear();
  user->updated_at = p_.clock.now();
  return p_.users.update(*user);
}

Result<TokenPair> AuthService::refresh(const std::string& refreshToken,
                                       const std::string& clientIp) {
  if (auto s = limit("refresh:ip:" + clientIp, policy_.login_per_ip_per_minute); !s) {
    return s.error();
  }
  auto claims = p_.tokens.decode(refreshToken, p_.clock.now());
  if (!claims) return claims.error();
  if (claims->kind != ports::TokenKind::refresh) {
    return makeError(ErrorCode::unauthenticated, "not a refresh token", "TOKEN_INVALID");
  }
  auto consumed = p_.refreshTokens.consume(claims->token_id, p_.clock.now());
  if (!consumed) return consumed.error();
  auto user = p_.users.get(consumed->user_id);
  if (!user || user->disabled) {
    (void)p_.refreshTokens.revokeFamily(consumed->family_id);
    return makeError(ErrorCode::unauthenticated, "the user cannot log in", "TOKEN_INVALID");
  }
  return issue(*user, consumed->family_id);
}

Status AuthService::logout(const std::string& refreshToken) {
  auto claims = p_.tokens.decode(refreshToken, p_.clock.now());
  if (!claims || claims->kind != ports::TokenKind::refresh || claims->family_id.empty()) return {};
  return p_.refreshTokens.revokeFamily(claims->family_id);
}

Result<Principal> AuthService::authenticate(const std::string& accessToken) {
  auto claims = p_.tokens.decode(accessToken, p_.clock.now());
  if (!claims) return claims.error();
  if (claims->kind != ports::TokenKind::access) {
    return makeError(ErrorCode::unauthenticated, "only an access token authenticates a request",
                     "TOKEN_INVALID");
  }
  auto user = p_.users.get(claims->subject);
  if (!user) {
    if (user.error().code == ErrorCode::not_found) {
      return makeError(ErrorCode::unauthenticated, "the user no longer exists", "TOKEN_INVALID");
    }
    return user.error();
  }
  if (user->disabled) {
    return makeError(ErrorCode::unauthenticated, "the user is disabled", "TOKEN_INVALID");
  }
  return Principal{std::move(*user)};
}

}  // namespace certsteward::domain
