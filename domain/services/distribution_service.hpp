// DistributionService: which module configurations deliver a certificate, and the actions on a
// distribution (dry-run, execute, rollback) and a module configuration (health). Reading needs
// the project viewer role; changes and actions the operator role.
#pragma once

#include <vector>

#include "domain/distribution.hpp"
#include "domain/services/access_control.hpp"
#include "domain/services/audit_service.hpp"
#include "domain/services/distribution_runner.hpp"
#include "domain/services/unit_of_work.hpp"
#include "ports/certificate_repository.hpp"
#include "ports/clock.hpp"
#include "ports/distribution_repository.hpp"
#include "ports/id_generator.hpp"
#include "ports/job_queue.hpp"
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
  // With the runner and the job queue, the actions below work; without, they answer
  // unavailable (503) saying so.
  DistributionService(Ports ports, ports::JobQueue& jobs, DistributionRunner& runner,
                      JobPolicy policy, UnitOfWork& work, const AccessControl& access,
                      AuditService& audit)
      : p_(ports),
        jobs_(&jobs),
        runner_(&runner),
        policy_(policy),
        work_(work),
        access_(access),
        audit_(audit) {}

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

  // The actions (operator role). dryRun: per-target plan, nothing changes anywhere.
  Result<std::vector<TargetResult>> dryRun(const Principal& who, const RequestContext& ctx,
                                           const Id& projectId, const Id& certificateId,
                                           const Id& id);
  // Queues distribution_execute for this distribution (the one already queued or running, if
  // any). failed_precondition when the certificate has not been issued.
  Result<Job> execute(const Principal& who, const RequestContext& ctx, const Id& projectId,
                      const Id& certificateId, const Id& id);
  // Queues distribution_rollback for the targets the last run reached; failed_precondition
  // (409) when the module cannot roll back or there is nothing to restore.
  Result<Job> rollback(const Principal& who, const RequestContext& ctx, const Id& projectId,
                       const Id& certificateId, const Id& id);
  // Connect, authenticate and host-key check of every target of a module configuration.
  Result<std::vector<TargetResult>> health(const Principal& who, const RequestContext& ctx,
                                           const Id& projectId, const Id& moduleConfigId);

 private:
  Status actionsAvailable() const;
  // failed_precondition saying `why` when an unfinished job of `type` runs this distribution
  // (or, for an execute, every distribution of the certificate).
  Status noUnfinished(const Id& projectId, const Id& certificateId, JobType type,
                      const Id& distributionId, const char* why) const;
  Result<Job> enqueue(const Principal& who, const RequestContext& ctx, const Distribution& d,
                      Job job, const char* action);

  Ports p_;
  ports::JobQueue* jobs_ = nullptr;
  DistributionRunner* runner_ = nullptr;
  JobPolicy policy_{};
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::domain
