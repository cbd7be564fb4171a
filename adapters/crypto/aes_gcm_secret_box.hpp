// AesGcmSecretBox: AES-256-GCM with a random 96-bit nonce per value. The key is derived from
// the configured secret. Sealed form: "v1:" + base64(nonce ‖ ciphertext ‖ tag). Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include <certsteward/ports/secret_box.hpp>

namespace certsteward::adapters::crypto {

class AesGcmSecretBox : public ports::SecretBox {
 public:
  // `secret` is the configured key material (at least 32 bytes of entropy).
  explicit AesGcmSecretBox(std::string_view secret);

  domain::Result<std::string> seal(std::string_view plaintext) const override;
  domain::Result<std::string> open(std::string_view sealed) const override;

 private:
  std::array<std::uint8_t, 32> key_{};
};

}  // namespace certsteward::adapters::crypto
