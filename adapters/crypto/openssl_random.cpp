// Cryptographically secure random bytes.
#include "adapters/crypto/openssl_random.hpp"

#include <openssl/rand.h>

#include <stdexcept>

namespace certsteward::adapters::crypto {

std::string OpenSslRandom::bytes(std::size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1) {
    throw std::runtime_error("no randomness available");  // the process cannot run safely
  }
  return out;
}

}  // namespace certsteward::adapters::crypto
