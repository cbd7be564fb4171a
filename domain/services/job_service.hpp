// JobService: jobs as the API shows them — list, get, logs, retry (project admin, 20 per
// minute), cancel (operator) — and the events jobs raise, under the role matrix, audited.
#pragma once

#include "domain/job.hpp"
#include "domain/services/access_control.hpp"
#include "domain/services/audit_service.hpp"
#include "domain/services/unit_of_work.hpp"
#include "ports/certificate_repository.hpp"
#include "ports/clock.hpp"
#include "ports/event_log.hpp"
#include "ports/job_log_repository.hpp"
#include "ports/job_queue.hpp"
#include "ports/rate_limit_counter.hpp"

namespace certsteward::domain {

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

  Result<Page<Job>> list(const Principal& who, const Id& projectId, const ports::JobFilter& filter,
                         const PageRequest& page);
  Result<Job> get(const Principal& who, const Id& projectId, const Id& id);
  Result<Page<JobLogEntry>> logs(const Principal& who, const Id& projectId, const Id& id,
                                 const PageRequest& page);
  // The project's raised events (job.failed, cert.renewal_failed, ...), newest first.
  Result<Page<Event>> events(const Principal& who, const Id& projectId, const PageRequest& page);
  // Oldest first in the order recorded (cursor reads: an offset stays valid as events arrive).
  Result<Page<Event>> eventsInOrder(const Principal& who, const Id& projectId,
                                    const PageRequest& page);
  // failed_precondition (409) unless the job is dead, failed or cancelled.
  Result<Job> retry(const Principal& who, const RequestContext& ctx, const Id& projectId,
                    const Id& id);
  // Pending/failed: cancelled at once; active: a cancel request the heartbeat sees.
  Result<Job> cancel(const Principal& who, const RequestContext& ctx, const Id& projectId,
                     const Id& id);

 private:
  Result<Job> transition(const Principal& who, const RequestContext& ctx, const Id& projectId,
                         const Id& id, JobEvent event, const char* action);

  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::domain
