// SecretBox: authenticated encryption of secrets at rest (AES-256-GCM in production).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

class SecretBox {
 public:
  virtual ~SecretBox() = default;

  /**
   * Encrypts `plaintext` under the configured key with a fresh nonce.
   * @return printable ciphertext (safe to store in any text column). internal on a crypto
   * library failure. Thread-safe.
   */
  virtual domain::Result<std::string> seal(std::string_view plaintext) const = 0;

  /**
   * @return the plaintext of a value made by seal(). invalid_argument when it is malformed or
   * fails authentication (tampered, or sealed under another key); the message never contains
   * the ciphertext or plaintext. Thread-safe.
   */
  virtual domain::Result<std::string> open(std::string_view sealed) const = 0;
};

using SecretBoxPtr = std::unique_ptr<SecretBox>;

}  // namespace certsteward::ports
