// Ed25519LicenseVerifier: offline licence keys "<base64url(payload)>.<base64url(signature)>",
// the signature Ed25519 over the payload bytes, the payload JSON
// {"license_id", "plan_name", "cert_limit" (0 or absent = unlimited), "exp" (unix seconds),
//  "iat", "licensee"}. docs/operations.md explains how keys are made. Thread-safe.
#pragma once

#include <string>

#include <certsteward/ports/license_verifier.hpp>

namespace certsteward::adapters::crypto {

class Ed25519LicenseVerifier : public ports::LicenseVerifier {
 public:
  // `publicKeyPem`: the PEM of the Ed25519 public key; empty = licences cannot be activated.
  explicit Ed25519LicenseVerifier(std::string publicKeyPem);
  ~Ed25519LicenseVerifier() override;
  domain::Result<domain::License> verify(std::string_view licenseKey) const override;

  // Whether a key was given and it is an Ed25519 public key.
  bool hasKey() const { return key_ != nullptr; }
  // Whether `pem` is the PEM of an Ed25519 public key (start-up refuses anything else).
  static bool isEd25519PublicKey(const std::string& pem);

  // Signs a payload (for tests and the key-making tool): returns the licence key.
  static domain::Result<std::string> sign(const std::string& privateKeyPem,
                                          const std::string& payloadJson);

 private:
  void* key_ = nullptr;  // EVP_PKEY*
};

}  // namespace certsteward::adapters::crypto
