// OpenSslOtpHasher: HMAC-SHA1 for one-time passwords. Thread-safe.
#pragma once

#include <certsteward/ports/otp_hasher.hpp>

namespace certsteward::adapters::crypto {

class OpenSslOtpHasher : public ports::OtpHasher {
 public:
  std::string hmacSha1(std::string_view key, std::string_view message) const override;
};

}  // namespace certsteward::adapters::crypto
