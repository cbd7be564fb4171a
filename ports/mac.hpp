// Mac: a keyed message authentication code (HMAC-SHA256 in production), used to seal the
// audit chain. The key is fixed when the adapter is built.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace certsteward::ports {

class Mac {
 public:
  virtual ~Mac() = default;

  /**
   * @param message the bytes to authenticate.
   * @return the raw MAC bytes (32 for HMAC-SHA256). Never fails for a configured key.
   * Thread-safe.
   */
  virtual std::string sign(std::string_view message) const = 0;

  /**
   * The same MAC written into `out` (at least 64 bytes) without allocating, for hot loops such
   * as audit verification. @return its length. Thread-safe.
   */
  virtual std::size_t signInto(std::string_view message, std::span<unsigned char, 64> out) const {
    const std::string mac = sign(message);
    const std::size_t n = mac.size() < out.size() ? mac.size() : out.size();
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<unsigned char>(mac[i]);
    return n;
  }
};

using MacPtr = std::unique_ptr<Mac>;

}  // namespace certsteward::ports
