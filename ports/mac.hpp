// Mac: a keyed message authentication code (HMAC-SHA256 in production), used to seal the
// audit chain. The key is fixed when the adapter is built.
#pragma once

#include <memory>
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
};

using MacPtr = std::unique_ptr<Mac>;

}  // namespace certsteward::ports
