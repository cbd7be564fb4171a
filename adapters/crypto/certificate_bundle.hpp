// Certificate bundles for downloads (OpenSSL): the private key leaves CertSteward only
// encrypted with a password the caller chose — as an encrypted PKCS#8 PEM or inside a
// PKCS#12 file (AES-256-CBC, PBKDF2, HMAC-SHA256 MAC: OpenSSL 3's defaults).
#pragma once

#include <string>
#include <string_view>

#include <certsteward/domain/result.hpp>
#include <certsteward/ports/key_bundles.hpp>

namespace certsteward::adapters::crypto {

// "-----BEGIN ENCRYPTED PRIVATE KEY-----" (PKCS#8, AES-256-CBC, PBKDF2) from a PEM key.
// internal when the stored key cannot be read; the message never holds key material.
domain::Result<std::string> encryptPrivateKeyPem(std::string_view keyPem,
                                                 std::string_view password);

// A DER PKCS#12 file with the key, the leaf and the chain, protected by `password`.
// `friendlyName` labels the key and leaf entries.
domain::Result<std::string> makePkcs12(std::string_view keyPem, std::string_view certificatePem,
                                       std::string_view chainPem, std::string_view password,
                                       const std::string& friendlyName);

// The KeyBundles port through the two functions above.
class OpenSslKeyBundles : public ports::KeyBundles {
 public:
  domain::Result<std::string> encryptedPrivateKeyPem(std::string_view keyPem,
                                                     std::string_view password) const override {
    return encryptPrivateKeyPem(keyPem, password);
  }
  domain::Result<std::string> pkcs12(std::string_view keyPem, std::string_view certificatePem,
                                     std::string_view chainPem, std::string_view password,
                                     const std::string& friendlyName) const override {
    return makePkcs12(keyPem, certificatePem, chainPem, password, friendlyName);
  }
};

}  // namespace certsteward::adapters::crypto
