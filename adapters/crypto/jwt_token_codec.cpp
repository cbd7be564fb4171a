// JWT encoding and full verification.
#include <certsteward/adapters/crypto/jwt_token_codec.hpp>

#include <jwt.h>

#include <cerrno>
#include <cstdlib>
#include <memory>

namespace certsteward::adapters::crypto {
namespace {

using Jwt = std::unique_ptr<jwt_t, decltype(&jwt_free)>;

domain::Error invalid(const char* why) {
  return domain::makeError(domain::ErrorCode::unauthenticated, why, "TOKEN_INVALID");
}

const unsigned char* keyBytes(const std::string& s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

std::string grant(jwt_t* jwt, const char* name) {
  const char* v = jwt_get_grant(jwt, name);
  return v != nullptr ? v : "";
}

}  // namespace

domain::Result<std::string> JwtTokenCodec::encode(const ports::TokenClaims& claims) const {
  jwt_t* raw = nullptr;
  if (jwt_new(&raw) != 0) return domain::makeError(domain::ErrorCode::internal, "jwt_new failed");
  Jwt jwt(raw, &jwt_free);
  const auto secs = [](domain::Timestamp t) { return static_cast<long>(domain::unixSeconds(t)); };
  int rc = jwt_set_alg(jwt.get(), JWT_ALG_HS256, keyBytes(settings_.secret),
                       static_cast<int>(settings_.secret.size()));
  rc |= jwt_add_grant(jwt.get(), "sub", claims.subject.c_str());
  rc |= jwt_add_grant(jwt.get(), "jti", claims.token_id.c_str());
  rc |= jwt_add_grant(jwt.get(), "iss", settings_.issuer.c_str());
  rc |= jwt_add_grant(jwt.get(), "aud", settings_.audience.c_str());
  const char* kind = claims.kind == ports::TokenKind::access    ? "access"
                     : claims.kind == ports::TokenKind::refresh ? "refresh"
                                                                : "otp";
  rc |= jwt_add_grant(jwt.get(), "typ", kind);
  if (!claims.family_id.empty()) rc |= jwt_add_grant(jwt.get(), "fam", claims.family_id.c_str());
  rc |= jwt_add_grant_int(jwt.get(), "iat", secs(claims.issued_at));
  // The issue time to the millisecond, so a password change ends the tokens issued before it
  // and not the ones issued right after it in the same second.
  rc |= jwt_add_grant_int(jwt.get(), "iat_ms",
                          static_cast<long>(claims.issued_at.time_since_epoch().count()));
  rc |= jwt_add_grant_int(jwt.get(), "exp", secs(claims.expires_at));
  if (rc != 0) return domain::makeError(domain::ErrorCode::internal, "cannot build the token");
  char* encoded = jwt_encode_str(jwt.get());
  if (encoded == nullptr)
    return domain::makeError(domain::ErrorCode::internal, "cannot sign the token");
  std::string out(encoded);
  std::free(encoded);
  return out;
}

domain::Result<ports::TokenClaims> JwtTokenCodec::decode(std::string_view token,
                                                         domain::Timestamp now) const {
  if (token.empty() || token.size() > 4096) return invalid("malformed token");
  const std::string text(token);
  if (auto known = verified_.find(text, now)) return std::move(*known);
  jwt_t* raw = nullptr;
  if (jwt_decode(&raw, text.c_str(), keyBytes(settings_.secret),
                 static_cast<int>(settings_.secret.size())) != 0 ||
      raw == nullptr) {
    return invalid("token signature or format is wrong");
  }
  Jwt jwt(raw, &jwt_free);
  if (jwt_get_alg(jwt.get()) != JWT_ALG_HS256) return invalid("unexpected token algorithm");
  if (grant(jwt.get(), "iss") != settings_.issuer) return invalid("token issuer mismatch");
  if (grant(jwt.get(), "aud") != settings_.audience) return invalid("token audience mismatch");
  errno = 0;
  const long exp = jwt_get_grant_int(jwt.get(), "exp");
  if (errno != 0) return invalid("token has no expiry");
  const long iat = jwt_get_grant_int(jwt.get(), "iat");
  ports::TokenClaims claims;
  claims.subject = grant(jwt.get(), "sub");
  claims.token_id = grant(jwt.get(), "jti");
  claims.family_id = grant(jwt.get(), "fam");
  const std::string typ = grant(jwt.get(), "typ");
  if (typ == "access") {
    claims.kind = ports::TokenKind::access;
  } else if (typ == "refresh") {
    claims.kind = ports::TokenKind::refresh;
  } else if (typ == "otp") {
    claims.kind = ports::TokenKind::otp;
  } else {
    return invalid("unknown token kind");
  }
  if (claims.subject.empty() || claims.token_id.empty()) return invalid("token lacks sub or jti");
  claims.issued_at = domain::fromUnixSeconds(iat);
  errno = 0;
  const long iatMs = jwt_get_grant_int(jwt.get(), "iat_ms");
  if (errno == 0) claims.issued_at = domain::Timestamp{domain::Duration{iatMs}};
  claims.expires_at = domain::fromUnixSeconds(exp);
  if (claims.expires_at <= now) {
    return domain::makeError(domain::ErrorCode::unauthenticated, "token expired", "TOKEN_EXPIRED");
  }
  verified_.put(text, claims, claims.expires_at, now);
  return claims;
}

}  // namespace certsteward::adapters::crypto
