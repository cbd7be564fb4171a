// DistributionService: which module configurations deliver a certificate. Reading needs the
// project viewer role, changes the operator role.
#pragma once

#include <vector>

#include "domain/distribution.hpp"
#include "domain/services/access_control.hpp"
#include "domain/services/audit_service.hpp"
#include "domain/services/unit_of_work.hpp"
#include "ports/certificate_repository.hpp"
#include "ports/clock.hpp"
#include "ports/distribution_repository.hpp"
#include "ports/id_generator.hpp"
#include "ports/module_config_repository.hpp"

namespace certsteward::domain {

class DistributionService {
 public:
  struct Ports {
    ports::DistributionRepository& distributions;
    ports::CertificateRepository& certificates;
    ports::ModuleConfigRepository& modules;
    ports::IdGenerator& ids;
    const ports::Clock& clock;
  };
  DistributionService(Ports ports, UnitOfWork& work, const AccessControl& access,
                      AuditService& audit)
      : p_(ports), work_(work), access_(access), audit_(audit) {}

  // not_found for an unknown certificate.
  Result<std::vector<Distribution>> forCertificate(const Principal& who, const Id& projectId,
                                                   const Id& certificateId);
  Result<Page<Distribution>> list(const Principal& who, const Id& projectId,
                                  const PageRequest& page);
  // The distribution of `certificateId` with id `id`; not_found otherwise.
  Result<Distribution> get(const Principal& who, const Id& projectId, const Id& certificateId,
                           const Id& id);
  // invalid_argument (422) when the module configuration is not the project's.
  Result<Distribution> create(const Principal& who, const RequestContext& ctx, const Id& projectId,
                              const Id& certificateId, const Id& moduleConfigId);
  Status remove(const Principal& who, const RequestContext& ctx, const Id& projectId,
                const Id& certificateId, const Id& id);

 private:
  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::domain
