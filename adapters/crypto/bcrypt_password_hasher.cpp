// bcrypt through libcrypt; `struct crypt_data` is 32 KiB, so it lives on the heap.
#include <certsteward/adapters/crypto/bcrypt_password_hasher.hpp>

#include <crypt.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <array>
#include <memory>

namespace certsteward::adapters::crypto {
namespace {

constexpr std::size_t kMaxBcryptBytes = 72;

bool acceptable(std::string_view password) {
  return password.size() <= kMaxBcryptBytes && password.find('\0') == std::string_view::npos;
}

}  // namespace

domain::Result<std::string> BcryptPasswordHasher::hash(std::string_view password) const {
  if (!acceptable(password)) {
    return domain::makeError(domain::ErrorCode::invalid_argument,
                             "password must be at most 72 bytes and contain no NUL character");
  }
  std::array<unsigned char, 16> random{};
  if (RAND_bytes(random.data(), static_cast<int>(random.size())) != 1) {
    return domain::makeError(domain::ErrorCode::internal, "no randomness for a password salt");
  }
  std::array<char, CRYPT_GENSALT_OUTPUT_SIZE> salt{};
  if (crypt_gensalt_rn(
          "$2b$", static_cast<unsigned long>(cost_), reinterpret_cast<const char*>(random.data()),
          static_cast<int>(random.size()), salt.data(), static_cast<int>(salt.size())) == nullptr) {
    return domain::makeError(domain::ErrorCode::internal, "cannot make a bcrypt salt");
  }
  auto data = std::make_unique<crypt_data>();
  const std::string phrase(password);
  const char* out = crypt_r(phrase.c_str(), salt.data(), data.get());
  if (out == nullptr || out[0] == '*') {
    return domain::makeError(domain::ErrorCode::internal, "bcrypt failed");
  }
  return std::string(out);
}

bool BcryptPasswordHasher::verify(std::string_view password, std::string_view hash) const {
  if (!acceptable(password) || !hash.starts_with("$2")) return false;
  auto data = std::make_unique<crypt_data>();
  const std::string phrase(password);
  const std::string setting(hash);
  const char* out = crypt_r(phrase.c_str(), setting.c_str(), data.get());
  if (out == nullptr || out[0] == '*') return false;
  const std::string computed(out);
  return computed.size() == setting.size() &&
         CRYPTO_memcmp(computed.data(), setting.data(), setting.size()) == 0;
}

}  // namespace certsteward::adapters::crypto
