// Random: unpredictable bytes for tokens (CSRF tokens, OTP sessions). OpenSSL in production.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace certsteward::ports {

class Random {
 public:
  virtual ~Random() = default;

  /** @return `n` bytes from a cryptographically secure generator. Never fails. Thread-safe. */
  virtual std::string bytes(std::size_t n) = 0;
};

using RandomPtr = std::unique_ptr<Random>;

}  // namespace certsteward::ports
