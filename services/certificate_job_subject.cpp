#include <certsteward/services/certificate_job_subject.hpp>

#include <certsteward/domain/notification_rules.hpp>

namespace certsteward::services {

JobFailureSubject certificateJobSubject(const ports::CertificateRepository& certificates,
                                        const ports::Clock& clock, const domain::Job& job) {
  if (!job.certificate_id) return {job.id, {}};
  JobFailureSubject about{*job.certificate_id, {}};
  if (auto cert = certificates.get(job.project_id, *job.certificate_id)) {
    about.details = certificateVariables(*cert, clock.now());
  }
  return about;
}

}  // namespace certsteward::services
