// Cryptographically secure random bytes, or the end of the process.
#include <certsteward/adapters/crypto/openssl_random.hpp>

#include <openssl/rand.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace certsteward::adapters::crypto {

OpenSslRandom::OpenSslRandom() : source_(&RAND_bytes) {}

std::string OpenSslRandom::bytes(std::size_t n) {
  std::string out(n, '\0');
  // RAND_bytes takes an int: larger requests go in pieces.
  constexpr std::size_t kPiece = 1 << 20;
  for (std::size_t done = 0; done < n; done += kPiece) {
    const std::size_t piece = std::min(kPiece, n - done);
    if (source_(reinterpret_cast<unsigned char*>(out.data() + done), static_cast<int>(piece)) !=
        1) {
      // The Random port never fails: nothing that needs a token, a key or a nonce could go on.
      std::fprintf(stderr,
                   "certsteward: the system's random generator failed (RAND_bytes); stopping, "
                   "since nothing secure can run without it\n");
      std::fflush(stderr);
      std::abort();
    }
  }
  return out;
}

}  // namespace certsteward::adapters::crypto
