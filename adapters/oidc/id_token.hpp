// OpenID Connect ID tokens (OIDC Core 3.1.3.7): a JWS signed by the provider with a key of its
// JWKS (RS256, PS256 or ES256; "none" and HMAC algorithms are refused, so a public key can
// never be used as an HMAC secret), issued by the expected issuer for this client, not
// expired, carrying the nonce of the login that asked for it.
#pragma once

#include <chrono>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::adapters::oidc {

struct IdTokenExpectations {
  std::string issuer;
  std::string client_id;  // the audience
  std::string nonce;
  domain::Timestamp now{};
  std::chrono::seconds leeway{60};  // clock skew allowed on exp, iat and nbf
};

struct IdToken {
  std::string subject;
  // Every string claim as one value, a boolean as "true" or "false", every array of strings as
  // its values (groups, roles, ...).
  std::map<std::string, std::vector<std::string>> claims;

  std::string first(const std::string& claim) const {
    const auto it = claims.find(claim);
    return it == claims.end() || it->second.empty() ? std::string() : it->second.front();
  }
};

// Verifies `token` against `jwks` (the provider's JSON Web Key Set document). unauthenticated
// with reason ID_TOKEN_INVALID and a message naming the check that failed.
domain::Result<IdToken> verifyIdToken(std::string_view token, std::string_view jwks,
                                      const IdTokenExpectations& expected);

}  // namespace certsteward::adapters::oidc
