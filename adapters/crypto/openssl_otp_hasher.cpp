// HMAC-SHA1 through OpenSSL's one-shot HMAC().
#include <certsteward/adapters/crypto/openssl_otp_hasher.hpp>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdexcept>

namespace certsteward::adapters::crypto {

std::string OpenSslOtpHasher::hmacSha1(std::string_view key, std::string_view message) const {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha1(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(message.data()), message.size(), out,
           &length) == nullptr) {
    throw std::runtime_error("HMAC-SHA1 failed");
  }
  return std::string(reinterpret_cast<const char*>(out), length);
}

}  // namespace certsteward::adapters::crypto
