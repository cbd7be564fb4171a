// OtpHasher: HMAC-SHA1 under a per-user key, as RFC 4226/6238 one-time passwords need.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace certsteward::ports {

class OtpHasher {
 public:
  virtual ~OtpHasher() = default;

  /** @return the raw 20-byte HMAC-SHA1 of `message` under `key`. Never fails. Thread-safe. */
  virtual std::string hmacSha1(std::string_view key, std::string_view message) const = 0;
};

using OtpHasherPtr = std::unique_ptr<OtpHasher>;

}  // namespace certsteward::ports
