#include <certsteward/services/scheduler.hpp>

#include <algorithm>
#include <span>

namespace certsteward::services {

domain::Result<bool> Scheduler::lead(const std::string& instance) {
  return p_.lock.tryAcquire(kLockName, instance, p_.clock.now(), options_.leader_ttl);
}

domain::Status Scheduler::resign(const std::string& instance) {
  return p_.lock.release(kLockName, instance);
}

domain::Result<SweepReport> Scheduler::sweep() {
  SweepReport report;
  for (std::int64_t round = 0; round < options_.max_batches; ++round) {
    const domain::Timestamp now = p_.clock.now();
    auto due = p_.certificates.dueForRenewal(now, options_.batch);
    if (!due) return due.error();
    if (due->empty()) break;
    std::int64_t progressed = 0;
    // In chunks, each one transaction: a renewal's job and its certificate's change commit
    // together, and a chunk is short enough not to hold the project's other writers up long
    // (on MongoDB every certificate write of a project touches one counter document).
    for (std::size_t from = 0; from < due->size(); from += kChunk) {
      const std::span<const domain::Certificate> part(due->data() + from,
                                                      std::min(kChunk, due->size() - from));
      SweepReport chunk;  // counted per run: a chunk the store runs again counts once
      const auto queue = [&] { return queueRenewals(part, now, chunk); };
      if (auto s = p_.transactions != nullptr ? p_.transactions->run(queue) : queue(); !s) {
        return s.error();
      }
      report.due += chunk.due;
      report.enqueued += chunk.enqueued;
      report.skipped += chunk.skipped;
      progressed += chunk.due - chunk.skipped;  // each due certificate is moved or skipped
    }
    // A short batch was the last; a batch where nothing moved would come back the same.
    if (static_cast<std::int64_t>(due->size()) < options_.batch || progressed == 0) break;
  }
  if (auto s = queueExpiryChecks(report); !s) return s.error();
  if (auto s = queueRenewalInfoChecks(report); !s) return s.error();
  if (auto s = queueStaleDistributions(report); !s) return s.error();
  if (auto s = queueDigests(report); !s) return s.error();
  return report;
}

domain::Status Scheduler::queueRenewals(std::span<const domain::Certificate> due,
                                        domain::Timestamp now, SweepReport& counted) {
  counted = SweepReport{};
  for (domain::Certificate cert : due) {  // a copy: a chunk run again starts from the read
    ++counted.due;
    // The job first (idempotent by key), then the certificate: without a transaction, a crash
    // in between leaves a queued job and a certificate the next sweep moves, never a pending
    // certificate without a job.
    domain::Job job = newJob(p_.ids.next(), cert.project_id, domain::JobType::renew_certificate,
                             now, options_.policy);
    job.certificate_id = cert.id;
    job.idempotency_key = renewalIdempotencyKey(cert);
    auto queued = p_.jobs.enqueue(job);
    if (!queued) return queued.error();
    if (queued->created) ++counted.enqueued;
    if (!applyCertificateEvent(cert, domain::CertificateEvent::scheduled_renew,
                               domain::CertificateContext{now, "", {}, {}, false, {}})) {
      ++counted.skipped;
      continue;
    }
    cert.updated_at = now;
    if (auto stored = p_.certificates.update(cert); !stored) {
      // Changed meanwhile (the next sweep sees it again) or deleted: skipped.
      if (stored.error().code != domain::ErrorCode::conflict &&
          stored.error().code != domain::ErrorCode::not_found) {
        return stored.error();
      }
      ++counted.skipped;
    }
  }
  return {};
}

domain::Status Scheduler::queueRenewalInfoChecks(SweepReport& report) {
  const domain::Timestamp now = p_.clock.now();
  // One batch per sweep: a certificate whose question is queued stays due until its job has
  // asked (its key holds it to one job), so later sweeps take the rest.
  auto due = p_.certificates.dueForRenewalInfo(now, options_.batch);
  if (!due) return due.error();
  for (const auto& cert : *due) {
    domain::Job job = newJob(p_.ids.next(), cert.project_id, domain::JobType::check_renewal_info,
                             now, options_.policy);
    job.certificate_id = cert.id;
    job.idempotency_key =
        "renewal-info:" + cert.id + ":" + std::to_string(domain::unixSeconds(*cert.ari_poll_at));
    auto queued = p_.jobs.enqueue(job);
    if (!queued) return queued.error();
    if (queued->created) ++report.renewal_info;
  }
  return {};
}

domain::Status Scheduler::queueStaleDistributions(SweepReport& report) {
  const domain::Timestamp now = p_.clock.now();
  auto stale = p_.certificates.distributionPendingSince(now - options_.stale_distribution_after,
                                                        options_.batch);
  if (!stale) return stale.error();
  for (const auto& cert : *stale) {
    const std::string key = distributionIdempotencyKey(cert);
    // A distribution of this very version that went dead or was cancelled waits for a person
    // (retry); the sweep does not start it over every hour.
    ports::JobFilter filter;
    filter.type = domain::JobType::distribution_execute;
    filter.certificate_id = cert.id;
    auto latest = p_.jobs.list(cert.project_id, filter, domain::PageRequest{1, 1});
    if (!latest) return latest.error();
    if (!latest->items.empty() && latest->items.front().idempotency_key == key &&
        (latest->items.front().status == domain::JobStatus::dead ||
         latest->items.front().status == domain::JobStatus::cancelled)) {
      continue;
    }
    domain::Job job = newJob(p_.ids.next(), cert.project_id, domain::JobType::distribution_execute,
                             now, options_.policy);
    job.certificate_id = cert.id;
    job.idempotency_key = key;
    auto queued = p_.jobs.enqueue(job);
    if (!queued) return queued.error();
    if (queued->created) ++report.distributions;
  }
  return {};
}

domain::Status Scheduler::queueExpiryChecks(SweepReport& report) {
  const domain::Timestamp now = p_.clock.now();
  const std::string today = domain::formatTimestamp(now).substr(0, 10);  // YYYY-MM-DD (UTC)
  auto done = p_.settings.get(kExpiryCheckDay);
  if (!done) return done.error();
  if (*done && (*done)->value == today) return {};
  // Every project, page by page; the key makes a second leader's (or a retried sweep's) jobs
  // for the same day collapse into the first while they are unfinished.
  for (std::int64_t page = 1;; ++page) {
    auto projects = p_.projects.list(domain::PageRequest{page, options_.batch});
    if (!projects) return projects.error();
    for (const auto& project : projects->items) {
      domain::Job job = newJob(p_.ids.next(), project.id,
                               domain::JobType::certificate_expiration_check, now, options_.policy);
      job.idempotency_key = "expiry-check:" + project.id + ":" + today;
      auto queued = p_.jobs.enqueue(job);
      if (!queued) return queued.error();
      if (queued->created) ++report.expiry_checks;
    }
    if (page * options_.batch >= projects->total || projects->items.empty()) break;
  }
  return p_.settings.put(domain::Setting{kExpiryCheckDay, today, now});
}

domain::Status Scheduler::queueDigests(SweepReport& report) {
  if (p_.rules == nullptr || p_.notifications == nullptr) return {};
  // One project's failure does not hold back the others' digests; the first is reported.
  domain::Status first;
  for (std::int64_t page = 1;; ++page) {
    auto projects = p_.projects.list(domain::PageRequest{page, options_.batch});
    if (!projects) return projects.error();
    for (const auto& project : projects->items) {
      for (std::int64_t rulePage = 1; rulePage <= 100; ++rulePage) {
        auto rules = p_.rules->list(project.id, domain::PageRequest{rulePage, 100});
        if (!rules) {
          if (first) first = rules.error();
          break;
        }
        for (const auto& rule : rules->items) {
          if (!rule.enabled) continue;  // (mode each: only what a digest mode left held)
          auto queued = p_.notifications->digestIfDue(rule);
          if (!queued) {
            if (first) first = queued.error();
            continue;
          }
          report.digests += *queued;
        }
        if (rulePage * 100 >= rules->total || rules->items.empty()) break;
      }
    }
    if (page * options_.batch >= projects->total || projects->items.empty()) break;
  }
  return first;
}

}  // namespace certsteward::services
