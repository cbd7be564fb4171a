// Random: unpredictable bytes for tokens (CSRF tokens, OTP sessions). OpenSSL in production.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

namespace certsteward::ports {

class Random {
 public:
  virtual ~Random() = default;

  /**
   * @return `n` bytes from a cryptographically secure generator. Never fails: an implementation
   * whose source is exhausted ends the process (a message on stderr, then std::abort) rather
   * than answer weak bytes or throw. Thread-safe.
   */
  virtual std::string bytes(std::size_t n) = 0;
};

using RandomPtr = std::unique_ptr<Random>;

}  // namespace certsteward::ports
