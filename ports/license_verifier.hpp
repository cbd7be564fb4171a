// LicenseVerifier: checks a pasted licence key's signature and reads its terms (offline keys
// signed with Ed25519 in production).
#pragma once

#include <memory>
#include <string_view>

#include <certsteward/domain/license.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

class LicenseVerifier {
 public:
  virtual ~LicenseVerifier() = default;

  /**
   * @return the licence the key describes (plan_name, cert_limit, expires_at, fingerprint,
   * activation_id, license_key); invalid_argument when the key is malformed or its signature
   * does not verify; failed_precondition when no public key is configured. Thread-safe.
   */
  virtual domain::Result<domain::License> verify(std::string_view licenseKey) const = 0;
};

using LicenseVerifierPtr = std::unique_ptr<LicenseVerifier>;

}  // namespace certsteward::ports
