// LicenseService: activation of an offline licence key (org owner) and the status view.
#pragma once

#include <string>

#include "domain/license.hpp"
#include "domain/services/access_control.hpp"
#include "domain/services/audit_service.hpp"
#include "domain/services/unit_of_work.hpp"
#include "ports/clock.hpp"
#include "ports/license_repository.hpp"
#include "ports/license_verifier.hpp"

namespace certsteward::domain {

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
  Result<LicenseStatusView> activate(const Principal& who, const RequestContext& ctx,
                                     const std::string& licenseKey);
  Result<LicenseStatusView> status(const Principal& who);

 private:
  ports::LicenseRepository& licenses_;
  const ports::LicenseVerifier& verifier_;
  const ports::Clock& clock_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::domain
