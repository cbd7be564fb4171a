// DistributionService: which module configurations deliver a certificate, and the actions on a
// distribution (dry-run, execute, rollback) and a module configuration (health). Reading needs
// the project viewer role; changes and actions the operator role.
#pragma once

#include <vector>

#include <certsteward/domain/distribution.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/distribution_repository.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/job_queue.hpp>
#include <certsteward/ports/module_config_repository.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

class DistributionRunner;  // services/distribution_runner.hpp

// A distribution as lists show it: with its certificate's common name and its module
// configuration's name ("" when either is gone).
struct DistributionView : domain::Distribution {
  std::string certificate_name;
  std::string module_name;
};

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
  // With the runner and the job queue, the actions below work; without, they answer
  // unavailable (503) saying so.
  DistributionService(Ports ports, ports::JobQueue& jobs, DistributionRunner& runner,
                      domain::JobPolicy policy, UnitOfWork& work, const AccessControl& access,
                      AuditService& audit)
      : p_(ports),
        jobs_(&jobs),
        runner_(&runner),
        policy_(policy),
        work_(work),
        access_(access),
        audit_(audit) {}

  // not_found for an unknown certificate.
  domain::Result<std::vector<DistributionView>> forCertificate(const Principal& who,
                                                               const domain::Id& projectId,
                                                               const domain::Id& certificateId);
  domain::Result<domain::Page<DistributionView>> list(const Principal& who,
                                                      const domain::Id& projectId,
                                                      const domain::PageRequest& page);
  // The distribution of `certificateId` with id `id`; not_found otherwise.
  domain::Result<domain::Distribution> get(const Principal& who, const domain::Id& projectId,
                                           const domain::Id& certificateId, const domain::Id& id);
  // invalid_argument (422) when the module configuration is not the project's.
  domain::Result<domain::Distribution> create(const Principal& who, const RequestContext& ctx,
                                              const domain::Id& projectId,
                                              const domain::Id& certificateId,
                                              const domain::Id& moduleConfigId);
  domain::Status remove(const Principal& who, const RequestContext& ctx,
                        const domain::Id& projectId, const domain::Id& certificateId,
                        const domain::Id& id);

  // The actions (operator role). dryRun: per-target plan, nothing changes anywhere.
  domain::Result<std::vector<domain::TargetResult>> dryRun(const Principal& who,
                                                           const RequestContext& ctx,
                                                           const domain::Id& projectId,
                                                           const domain::Id& certificateId,
                                                           const domain::Id& id);
  // Queues distribution_execute for this distribution (the one already queued or running, if
  // any). failed_precondition when the certificate has not been issued.
  domain::Result<domain::Job> execute(const Principal& who, const RequestContext& ctx,
                                      const domain::Id& projectId, const domain::Id& certificateId,
                                      const domain::Id& id);
  // Queues distribution_rollback for the targets the last run reached; failed_precondition
  // (409) when the module cannot roll back or there is nothing to restore.
  domain::Result<domain::Job> rollback(const Principal& who, const RequestContext& ctx,
                                       const domain::Id& projectId, const domain::Id& certificateId,
                                       const domain::Id& id);
  // Connect, authenticate and host-key check of every target of a module configuration.
  domain::Result<std::vector<domain::TargetResult>> health(const Principal& who,
                                                           const RequestContext& ctx,
                                                           const domain::Id& projectId,
                                                           const domain::Id& moduleConfigId);

 private:
  domain::Status actionsAvailable() const;
  // failed_precondition saying `why` when an unfinished job of `type` runs this distribution
  // (or, for an execute, every distribution of the certificate).
  domain::Status noUnfinished(const domain::Id& projectId, const domain::Id& certificateId,
                              domain::JobType type, const domain::Id& distributionId,
                              const char* why) const;
  domain::Result<domain::Job> enqueue(const Principal& who, const RequestContext& ctx,
                                      const domain::Distribution& d, domain::Job job,
                                      const char* action);

  Ports p_;
  ports::JobQueue* jobs_ = nullptr;
  DistributionRunner* runner_ = nullptr;
  domain::JobPolicy policy_{};
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::services
