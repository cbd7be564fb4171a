// OpenSslMac: HMAC-SHA256 under a fixed key (the audit signing key, and the keys of request
// fingerprints and CSRF binding). The key's inner and outer SHA-256 states (after the ipad and
// opad blocks) are computed once; each message then costs only its own blocks plus one, through
// OpenSSL's SHA-256 (SHA-NI where the CPU has it) with no per-call provider dispatch, lock or
// allocation. Checked against RFC 4231 in tests/unit/crypto_test.cpp. Thread-safe: the states
// are read-only after construction.
#pragma once

#include <array>
#include <string>

#include <certsteward/ports/mac.hpp>

namespace certsteward::adapters::crypto {

class OpenSslMac : public ports::Mac {
 public:
  explicit OpenSslMac(std::string key);

  std::string sign(std::string_view message) const override;
  std::size_t signInto(std::string_view message, std::span<unsigned char, 64> out) const override;

 private:
  // Two SHA256_CTX (OpenSSL's struct, 112 bytes), kept opaque so this header stays light.
  static constexpr std::size_t kStateBytes = 128;
  alignas(16) std::array<unsigned char, kStateBytes> inner_{};
  alignas(16) std::array<unsigned char, kStateBytes> outer_{};
};

}  // namespace certsteward::adapters::crypto
