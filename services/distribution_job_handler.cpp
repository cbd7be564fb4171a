// Distribution jobs.
#include <certsteward/services/distribution_job_handler.hpp>

#include <certsteward/services/certificate_job_subject.hpp>

namespace certsteward::services {
namespace {

// How long a distribution job waits for another run of the same distribution to finish.
constexpr domain::Duration kBusyDistributionWait = std::chrono::seconds{15};

}  // namespace

std::vector<domain::JobType> DistributionJobHandler::types() const {
  return {domain::JobType::distribution_execute, domain::JobType::distribution_rollback};
}

domain::Status DistributionJobHandler::attempt(const domain::Job& job,
                                               const domain::StopSignal& /*stop*/, const Log& log,
                                               AttemptNotes& notes) {
  auto ran = job.type == domain::JobType::distribution_execute ? runner_.execute(job, log)
                                                               : runner_.rollback(job, log);
  if (!ran && ran.error().reason == kDistributionBusy) {
    notes.deferred = true;  // another run holds it: wait, the attempt is not counted
    notes.not_before = clock_.now() + kBusyDistributionWait;
  }
  return ran;
}

JobFailureSubject DistributionJobHandler::failureSubject(const domain::Job& job) const {
  auto about = certificateJobSubject(certificates_, clock_, job);
  if (const auto d = job.payload.find(kDistributionIdPayload); d != job.payload.end()) {
    about.subject = d->second;
    about.details["distribution.id"] = d->second;
  } else if (job.certificate_id) {
    about.subject = "distribution-job:" + *job.certificate_id;
  }
  return about;
}

void DistributionJobHandler::abandoned(const domain::Job& job, const Log& /*log*/) {
  if (job.type != domain::JobType::distribution_execute) return;
  (void)runner_.abandon(job, job.status == domain::JobStatus::dead
                                 ? "its worker was lost on the last attempt: " + job.error_msg
                                 : "cancelled while its worker was lost");
}

}  // namespace certsteward::services
