// PasswordHasher: one-way password storage for local users (bcrypt in production).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

class PasswordHasher {
 public:
  virtual ~PasswordHasher() = default;

  /**
   * @return a self-describing hash of `password`. invalid_argument when the password cannot be
   * hashed faithfully (for bcrypt: longer than 72 bytes, or containing NUL); internal on a
   * library failure. Thread-safe.
   */
  virtual domain::Result<std::string> hash(std::string_view password) const = 0;

  /** @return whether `password` matches `hash`; false for a malformed hash. Thread-safe. */
  virtual bool verify(std::string_view password, std::string_view hash) const = 0;
};

using PasswordHasherPtr = std::unique_ptr<PasswordHasher>;

}  // namespace certsteward::ports
