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

#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/job.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/job_queue.hpp>
#include <certsteward/ports/notifier.hpp>
#include <certsteward/services/job_handler.hpp>
#include <certsteward/services/notification_runner.hpp>

namespace certsteward::services {

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
  ExpirationCheck(Ports ports, domain::CertificatePolicy certificates, domain::JobPolicy jobs)
      : p_(ports), certificatePolicy_(certificates), jobPolicy_(jobs) {}

  // The job's work. @return an error when the store fails or a payload is malformed.
  domain::Status run(const domain::Job& job, const Log& log);

  // As a JobHandler: certificate_expiration_check jobs.
  std::vector<domain::JobType> types() const override {
    return {domain::JobType::certificate_expiration_check};
  }
  domain::Status attempt(const domain::Job& job, const domain::StopSignal& /*stop*/, const Log& log,
                         AttemptNotes& /*notes*/) override {
    return run(job, log);
  }

 private:
  domain::Status raisePage(const domain::Job& job, domain::Timestamp cutoff,
                           const domain::PageRequest& page, const Log& log);

  Ports p_;
  domain::CertificatePolicy certificatePolicy_;
  domain::JobPolicy jobPolicy_;
};

}  // namespace certsteward::services
