// TokenCodec: signs and verifies the JWTs of sessions (libjwt in production).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::ports {

enum class TokenKind { access, refresh, otp };  // otp: the session between password and code

struct TokenClaims {
  domain::Id subject;    // the user id
  std::string token_id;  // jti
  TokenKind kind = TokenKind::access;
  domain::Id family_id;  // refresh tokens only
  domain::Timestamp issued_at{};
  domain::Timestamp expires_at{};
};

class TokenCodec {
 public:
  virtual ~TokenCodec() = default;

  /** @return the signed token carrying `claims` plus the configured iss and aud. Thread-safe. */
  virtual domain::Result<std::string> encode(const TokenClaims& claims) const = 0;

  /**
   * Verifies signature, algorithm, iss, aud and exp against `now`.
   * @return the claims; unauthenticated with reason TOKEN_EXPIRED when expired, TOKEN_INVALID
   * for anything else wrong. Thread-safe.
   */
  virtual domain::Result<TokenClaims> decode(std::string_view token,
                                             domain::Timestamp now) const = 0;
};

using TokenCodecPtr = std::unique_ptr<TokenCodec>;

}  // namespace certsteward::ports
