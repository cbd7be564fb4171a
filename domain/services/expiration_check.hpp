// ExpirationCheck: the certificate_expiration_check job. For one project it raises
// cert.expiring_soon for every issued certificate that expires within the warning window
// (CertificatePolicy::expiring_soon_window, or further when a notification rule's threshold is
// larger), read through the expiry index, never the whole project. A project with more such
// certificates than one batch is fanned out: the job enqueues one child per batch (parent_id set;
// payload `cutoff`, `page`, `page_size`, so every child reads the same window) and completes; each
// child raises the events of its page.
#pragma once

#include <functional>
#include <string>

#include "domain/certificate.hpp"
#include "domain/job.hpp"
#include "domain/services/job_handler.hpp"
#include "domain/services/notification_runner.hpp"
#include "ports/certificate_repository.hpp"
#include "ports/clock.hpp"
#include "ports/id_generator.hpp"
#include "ports/job_queue.hpp"
#include "ports/notifier.hpp"

namespace certsteward::domain {

class ExpirationCheck : public JobHandler {
 public:
  struct Ports {
    ports::CertificateRepository& certificates;
    ports::JobQueue& jobs;
    ports::Notifier& notifier;
    ports::IdGenerator& ids;
    const ports::Clock& clock;
    // The project's notification rules: a threshold beyond the warning window widens it.
    const NotificationRunner* notifications = nullptr;
  };
  ExpirationCheck(Ports ports, CertificatePolicy certificates, JobPolicy jobs)
      : p_(ports), certificatePolicy_(certificates), jobPolicy_(jobs) {}

  // The job's work. @return an error when the store fails or a payload is malformed.
  Status run(const Job& job, const Log& log);

  // As a JobHandler: certificate_expiration_check jobs.
  std::vector<JobType> types() const override { return {JobType::certificate_expiration_check}; }
  Status attempt(const Job& job, const StopSignal& /*stop*/, const Log& log,
                 AttemptNotes& /*notes*/) override {
    return run(job, log);
  }

 private:
  Status raisePage(const Job& job, Timestamp cutoff, const PageRequest& page, const Log& log);

  Ports p_;
  CertificatePolicy certificatePolicy_;
  JobPolicy jobPolicy_;
};

}  // namespace certsteward::domain
