// JwtTokenCodec: HS256 JWTs through libjwt. libjwt 1.10 checks only the signature, so the
// algorithm, iss, aud, exp and the token kind are checked here (NOTES.md). Thread-safe.
#pragma once

#include <string>

#include "ports/token_codec.hpp"

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
};

}  // namespace certsteward::adapters::crypto
