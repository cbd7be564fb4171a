// HMAC-SHA256 through OpenSSL's one-shot HMAC().
#include "adapters/crypto/openssl_mac.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <stdexcept>

namespace certsteward::adapters::crypto {

std::string OpenSslMac::sign(std::string_view message) const {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key_.data(), static_cast<int>(key_.size()),
           reinterpret_cast<const unsigned char*>(message.data()), message.size(), out,
           &length) == nullptr) {
    // Only a broken OpenSSL installation gets here; the port promises no failure.
    throw std::runtime_error("HMAC-SHA256 failed");
  }
  return std::string(reinterpret_cast<const char*>(out), length);
}

}  // namespace certsteward::adapters::crypto
