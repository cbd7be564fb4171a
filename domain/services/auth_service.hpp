// AuthService: login, token refresh with single-use refresh tokens in families, logout, and the
// authentication of access tokens. Applies the spec's login and refresh rate limits through the
// store's counters, so they hold across instances.
#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "domain/result.hpp"
#include "domain/services/access_control.hpp"
#include "domain/time.hpp"
#include "ports/clock.hpp"
#include "ports/id_generator.hpp"
#include "ports/otp_hasher.hpp"
#include "ports/password_hasher.hpp"
#include "ports/random.hpp"
#include "ports/rate_limit_counter.hpp"
#include "ports/refresh_token_store.hpp"
#include "ports/secret_box.hpp"
#include "ports/token_codec.hpp"
#include "ports/user_repository.hpp"

namespace certsteward::domain {

struct AuthPolicy {
  Duration access_token_ttl = std::chrono::minutes{15};
  Duration refresh_token_ttl = std::chrono::days{7};
  std::int64_t login_per_ip_per_minute = 10;  // also refresh and OTP verify
  std::int64_t login_per_username_per_minute = 5;
};

struct TokenPair {
  std::string access_token;
  std::string refresh_token;
  std::int64_t expires_in = 0;  // seconds, of the access token
  std::string refresh_family;
};

struct LoginResult {
  User user;
  TokenPair tokens;  // empty when a second factor is required
  std::string csrf_token;
  std::string otp_session_id;  // set instead of tokens when the user has TOTP enabled
};

struct TotpEnrolment {
  std::string secret;  // base32, for manual entry
  std::string otpauth_url;
};

inline constexpr Duration kOtpSessionTtl = std::chrono::minutes{5};

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
  };

  AuthService(Ports ports, AuthPolicy policy) : p_(ports), policy_(policy) {}

  // unauthenticated "invalid username or password" for any wrong detail (no user enumeration);
  // resource_exhausted/RATE_LIMITED past the limits.
  Result<LoginResult> login(const std::string& username, const std::string& password,
                            const std::string& clientIp);

  // Consumes a refresh token and issues the next pair of its family. unauthenticated with
  // TOKEN_INVALID, TOKEN_EXPIRED or TOKEN_REUSE (the family is then revoked).
  Result<TokenPair> refresh(const std::string& refreshToken, const std::string& clientIp);

  // Revokes the family of a refresh token (invalid tokens are ignored: logout always works).
  Status logout(const std::string& refreshToken);

  // The principal of an access token. unauthenticated with TOKEN_INVALID (also for a refresh
  // token, or a disabled/deleted user) or TOKEN_EXPIRED.
  Result<Principal> authenticate(const std::string& accessToken);

  // A random token for the CSRF double-submit cookie.
  std::string newCsrfToken();

  // Second step of a login with TOTP: the otp_session_id of the first step and a code.
  // unauthenticated for a wrong code or session; RATE_LIMITED past 10 per minute per address.
  Result<LoginResult> verifyOtp(const std::string& otpSessionId, const std::string& code,
                                const std::string& clientIp);

  // TOTP enrolment of the caller: a new secret (sealed at rest) that becomes active once
  // enable() sees a valid code. failed_precondition when TOTP is already enabled.
  Result<TotpEnrolment> totpSetup(const Principal& who);
  // invalid_argument (422) for a wrong code; failed_precondition without a pending setup.
  Status totpEnable(const Principal& who, const std::string& code);
  Status totpDisable(const Principal& who, const std::string& code);

 private:
  Status limit(const std::string& bucket, std::int64_t max);
  Result<LoginResult> complete(User user);
  bool codeMatches(const User& user, const std::string& code);
  Result<TokenPair> issue(const User& user, const Id& family);

  Ports p_;
  AuthPolicy policy_;
  std::once_flag dummyOnce_;
  std::string dummyHash_;
};

}  // namespace certsteward::domain
