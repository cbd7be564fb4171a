// BcryptPasswordHasher: bcrypt ($2b$) through libcrypt. Passwords over 72 bytes (which bcrypt
// would silently truncate) and passwords with NUL are refused. Thread-safe.
#pragma once

#include <certsteward/ports/password_hasher.hpp>

namespace certsteward::adapters::crypto {

class BcryptPasswordHasher : public ports::PasswordHasher {
 public:
  // cost 10 ≈ 50 ms, 12 ≈ 200 ms per hash on the project's machine (docs/configuration.md,
  // auth.bcrypt_cost).
  explicit BcryptPasswordHasher(int cost = 12) : cost_(cost) {}
  domain::Result<std::string> hash(std::string_view password) const override;
  bool verify(std::string_view password, std::string_view hash) const override;

 private:
  int cost_;
};

}  // namespace certsteward::adapters::crypto
