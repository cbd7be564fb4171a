#include "domain/services/scheduler.hpp"

namespace certsteward::domain {

Result<bool> Scheduler::lead(const std::string& instance) {
  return p_.lock.tryAcquire(kLockName, instance, p_.clock.now(), options_.leader_ttl);
}

Status Scheduler::resign(const std::string& instance) {
  return p_.lock.release(kLockName, instance);
}

Result<SweepReport> Scheduler::sweep() {
  SweepReport report;
  for (std::int64_t round = 0; round < options_.max_batches; ++round) {
    const Timestamp now = p_.clock.now();
    auto due = p_.certificates.dueForRenewal(now, options_.batch);
    if (!due) return due.error();
    std::int64_t progressed = 0;
    for (auto& cert : *due) {
      ++report.due;
      // The job first (idempotent by key), then the certificate: a crash in between leaves a
      // queued job and a certificate the next sweep moves, never a pending certificate
      // without a job.
      Job job =
          newJob(p_.ids.next(), cert.project_id, JobType::renew_certificate, now, options_.policy);
      job.certificate_id = cert.id;
      job.idempotency_key = renewalIdempotencyKey(cert);
      auto queued = p_.jobs.enqueue(job);
      if (!queued) return queued.error();
      if (queued->created) ++report.enqueued;
      if (!applyCertificateEvent(cert, CertificateEvent::scheduled_renew,
                                 CertificateContext{now, "", {}, {}, false, {}})) {
        ++report.skipped;
        continue;
      }
      cert.updated_at = now;
      if (auto stored = p_.certificates.update(cert); !stored) {
        if (stored.error().code != ErrorCode::conflict) return stored.error();
        ++report.skipped;
        continue;
      }
      ++progressed;
    }
    // A short batch was the last; a batch where nothing moved would come back the same.
    if (static_cast<std::int64_t>(due->size()) < options_.batch || progressed == 0) break;
  }
  return report;
}

}  // namespace certsteward::domain
