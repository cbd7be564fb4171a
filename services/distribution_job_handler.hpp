// The distribution_execute and distribution_rollback jobs, through DistributionRunner.
#pragma once

#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/services/distribution_runner.hpp>
#include <certsteward/services/job_handler.hpp>

namespace certsteward::services {

class DistributionJobHandler : public JobHandler {
 public:
  DistributionJobHandler(DistributionRunner& runner,
                         const ports::CertificateRepository& certificates,
                         const ports::Clock& clock)
      : runner_(runner), certificates_(certificates), clock_(clock) {}

  std::vector<domain::JobType> types() const override;
  // Another run of the same distribution holds it: deferred 15 s, the attempt not counted.
  domain::Status attempt(const domain::Job& job, const domain::StopSignal& stop, const Log& log,
                         AttemptNotes& notes) override;
  // An execute whose worker was lost: the distribution's run in progress ends failed.
  void abandoned(const domain::Job& job, const Log& log) override;
  // The distribution (or, for a job delivering every distribution of a certificate, that
  // delivery of its own, so a renewal's failure and recovery are not mixed with it), with the
  // certificate's variables.
  JobFailureSubject failureSubject(const domain::Job& job) const override;

 private:
  DistributionRunner& runner_;
  const ports::CertificateRepository& certificates_;
  const ports::Clock& clock_;
};

}  // namespace certsteward::services
