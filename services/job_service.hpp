// JobService: jobs as the API shows them — list, get, logs, retry (project admin, 20 per
// minute), cancel (operator) — and the events jobs raise, under the role matrix, audited.
#pragma once

#include <certsteward/domain/job.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/event_log.hpp>
#include <certsteward/ports/job_log_repository.hpp>
#include <certsteward/ports/job_queue.hpp>
#include <certsteward/ports/rate_limit_counter.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

// A job as the API shows it: with its certificate's common name ("" when it has none, or the
// certificate is gone).
struct JobView : domain::Job {
  std::string certificate_name;
};

class JobService {
 public:
  struct Ports {
    ports::JobQueue& jobs;
    ports::JobLogRepository& logs;
    ports::EventLog& events;
    ports::RateLimitCounter& rateLimits;
    const ports::Clock& clock;
    // A retried renewal takes its certificate from renewal_failed back to renewal_pending.
    ports::CertificateRepository& certificates;
  };
  JobService(Ports ports, UnitOfWork& work, const AccessControl& access, AuditService& audit)
      : p_(ports), work_(work), access_(access), audit_(audit) {}

  domain::Result<domain::Page<JobView>> list(const Principal& who, const domain::Id& projectId,
                                             const ports::JobFilter& filter,
                                             const domain::PageRequest& page);
  domain::Result<JobView> get(const Principal& who, const domain::Id& projectId,
                              const domain::Id& id);
  domain::Result<domain::Page<domain::JobLogEntry>> logs(const Principal& who,
                                                         const domain::Id& projectId,
                                                         const domain::Id& id,
                                                         const domain::PageRequest& page);
  // The project's raised events (job.failed, cert.renewal_failed, ...), newest first.
  domain::Result<domain::Page<domain::Event>> events(const Principal& who,
                                                     const domain::Id& projectId,
                                                     const domain::PageRequest& page);
  // Oldest first in the order recorded (cursor reads: an offset stays valid as events arrive).
  domain::Result<domain::Page<domain::Event>> eventsInOrder(const Principal& who,
                                                            const domain::Id& projectId,
                                                            const domain::PageRequest& page);
  // failed_precondition (409) unless the job is dead, failed or cancelled.
  domain::Result<domain::Job> retry(const Principal& who, const RequestContext& ctx,
                                    const domain::Id& projectId, const domain::Id& id);
  // Pending/failed: cancelled at once; active: a cancel request the heartbeat sees.
  domain::Result<domain::Job> cancel(const Principal& who, const RequestContext& ctx,
                                     const domain::Id& projectId, const domain::Id& id);
  // Sets a dead job aside (operators, as for cancel; audited job.dismiss): lists asked to hide
  // dismissed jobs leave it out. failed_precondition (409) unless dead and not yet dismissed.
  domain::Result<domain::Job> dismiss(const Principal& who, const RequestContext& ctx,
                                      const domain::Id& projectId, const domain::Id& id);

 private:
  domain::Result<domain::Job> transition(const Principal& who, const RequestContext& ctx,
                                         const domain::Id& projectId, const domain::Id& id,
                                         domain::JobEvent event, const char* action);

  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::services
