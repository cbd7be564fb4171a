// LicenseService: activation of an offline licence key (org owner) and the status view.
#pragma once

#include <string>

#include <certsteward/domain/license.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/license_repository.hpp>
#include <certsteward/ports/license_verifier.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

// The status view with what counts against the cap now.
struct LicenseStatus : domain::LicenseStatusView {
  std::int64_t certificates_used = 0;  // every project's certificates
};

class LicenseService {
 public:
  // `certificates`: where the certificates counted against the cap are (none: 0 is shown).
  LicenseService(ports::LicenseRepository& licenses, const ports::LicenseVerifier& verifier,
                 const ports::Clock& clock, UnitOfWork& work, const AccessControl& access,
                 AuditService& audit, const ports::CertificateRepository* certificates = nullptr)
      : licenses_(licenses),
        verifier_(verifier),
        clock_(clock),
        work_(work),
        access_(access),
        audit_(audit),
        certificates_(certificates) {}

  // invalid_argument (422) for a key that does not verify or expired more than 5 minutes ago;
  // failed_precondition (409) when no public key is configured. A renewed key replaces the
  // stored one and returns the state to enterprise.
  domain::Result<LicenseStatus> activate(const Principal& who, const RequestContext& ctx,
                                         const std::string& licenseKey);
  domain::Result<LicenseStatus> status(const Principal& who);

 private:
  ports::LicenseRepository& licenses_;
  const ports::LicenseVerifier& verifier_;
  const ports::Clock& clock_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
  const ports::CertificateRepository* certificates_;

  domain::Result<LicenseStatus> withUsage(domain::LicenseStatusView view) const;
};

}  // namespace certsteward::services
