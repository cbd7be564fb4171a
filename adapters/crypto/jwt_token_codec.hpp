// JwtTokenCodec: HS256 JWTs through libjwt. libjwt 1.10 checks only the signature, so the
// algorithm, iss, aud, exp and the token kind are checked here (docs/api.md, Authentication).
// Verified tokens are remembered until they expire (bounded), so a request costs one hash lookup.
// Thread-safe.
#pragma once

#include <string>

#include <certsteward/adapters/common/bounded_cache.hpp>
#include <certsteward/ports/token_codec.hpp>

namespace certsteward::adapters::crypto {

struct JwtSettings {
  std::string secret;  // at least 32 bytes
  std::string issuer;
  std::string audience;
};

class JwtTokenCodec : public ports::TokenCodec {
 public:
  explicit JwtTokenCodec(JwtSettings settings) : settings_(std::move(settings)) {}
  domain::Result<std::string> encode(const ports::TokenClaims& claims) const override;
  domain::Result<ports::TokenClaims> decode(std::string_view token,
                                            domain::Timestamp now) const override;

 private:
  JwtSettings settings_;
  // Tokens already verified, until their expiry: a token's signature and claims never change,
  // so a hit answers exactly what a full verification would (expiry is re-checked).
  mutable common::BoundedCache<ports::TokenClaims> verified_{4096};
};

}  // namespace certsteward::adapters::crypto
