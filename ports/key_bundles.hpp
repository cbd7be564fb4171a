// KeyBundles: a certificate's private key packed for download, only ever encrypted with a
// password the caller chose — an encrypted PKCS#8 PEM, or a PKCS#12 file with the chain.
#pragma once

#include <string>
#include <string_view>

#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

class KeyBundles {
 public:
  virtual ~KeyBundles() = default;

  /**
   * "-----BEGIN ENCRYPTED PRIVATE KEY-----" (PKCS#8) of `keyPem` under `password`.
   * @return internal when the key cannot be read; the message never holds key material.
   * Thread-safe.
   */
  virtual domain::Result<std::string> encryptedPrivateKeyPem(std::string_view keyPem,
                                                             std::string_view password) const = 0;

  /**
   * A DER PKCS#12 file with the key, the leaf and the chain, protected by `password`;
   * `friendlyName` labels the key and leaf entries. Errors as above. Thread-safe.
   */
  virtual domain::Result<std::string> pkcs12(std::string_view keyPem,
                                             std::string_view certificatePem,
                                             std::string_view chainPem, std::string_view password,
                                             const std::string& friendlyName) const = 0;
};

}  // namespace certsteward::ports
