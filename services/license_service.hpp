// LicenseService: activation of an offline licence key (org owner) and the status view.
#pragma once

#include <string>

#include <certsteward/domain/license.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/license_repository.hpp>
#include <certsteward/ports/license_verifier.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

class LicenseService {
 public:
  LicenseService(ports::LicenseRepository& licenses, const ports::LicenseVerifier& verifier,
                 const ports::Clock& clock, UnitOfWork& work, const AccessControl& access,
                 AuditService& audit)
      : licenses_(licenses),
        verifier_(verifier),
        clock_(clock),
        work_(work),
        access_(access),
        audit_(audit) {}

  // invalid_argument (422) for a key that does not verify or expired more than 5 minutes ago;
  // failed_precondition (409) when no public key is configured. A renewed key replaces the
  // stored one and returns the state to enterprise.
  domain::Result<domain::LicenseStatusView> activate(const Principal& who,
                                                     const RequestContext& ctx,
                                                     const std::string& licenseKey);
  domain::Result<domain::LicenseStatusView> status(const Principal& who);

 private:
  ports::LicenseRepository& licenses_;
  const ports::LicenseVerifier& verifier_;
  const ports::Clock& clock_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::services
