// Scheduler: one elected leader across instances (a lease in the store) sweeps for work that is
// due — certificates whose next_renewal_at has passed get a renew_certificate job under the
// idempotency key renew:<id>:<expires_at_unix>, so instances and repeated sweeps never queue a
// renewal twice. The sweep reads only what is due (an index), in bounded batches. Once per UTC
// day it also queues one certificate_expiration_check per project (cert.expiring_soon), and it
// queues check_renewal_info for certificates whose renewal window is to be read again (RFC 9773),
// distribution_execute for certificates whose distribution_pending is older than 5 min,
// and each digest rule's daily digest once its time has passed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include <certsteward/domain/job.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/job_queue.hpp>
#include <certsteward/ports/leader_lock.hpp>
#include <certsteward/ports/project_repository.hpp>
#include <certsteward/ports/settings_repository.hpp>
#include <certsteward/ports/transactions.hpp>
#include <certsteward/services/notification_runner.hpp>

namespace certsteward::services {

struct SchedulerOptions {
  domain::Duration leader_ttl = std::chrono::seconds{90};
  std::int64_t batch = 500;       // certificates read per query
  std::int64_t max_batches = 40;  // per sweep; the next sweep continues
  domain::JobPolicy policy{};
  // distribution_pending for longer than this: distribution_execute is queued again.
  domain::Duration stale_distribution_after = std::chrono::minutes{5};
};

struct SweepReport {
  std::int64_t due = 0;       // due certificates seen
  std::int64_t enqueued = 0;  // renewal jobs created
  std::int64_t skipped = 0;   // changed meanwhile; the next sweep looks again
  // certificate_expiration_check jobs queued (the first sweep of a day)
  std::int64_t expiry_checks = 0;
  // distribution_execute jobs queued for certificates pending distribution too long
  std::int64_t distributions = 0;
  // digests of notification rules queued (a rule's daily time passed)
  std::int64_t digests = 0;
  // check_renewal_info jobs queued (the CA is asked for a renewal window again)
  std::int64_t renewal_info = 0;
};

class Scheduler {
 public:
  static constexpr const char* kLockName = "scheduler";
  // Renewals queued per transaction within a batch.
  static constexpr std::size_t kChunk = 50;
  // The setting that remembers the UTC day whose expiry checks were queued.
  static constexpr const char* kExpiryCheckDay = "scheduler.expiry_check_day";

  struct Ports {
    ports::LeaderLock& lock;
    ports::CertificateRepository& certificates;
    ports::JobQueue& jobs;
    ports::IdGenerator& ids;
    const ports::Clock& clock;
    ports::ProjectRepository& projects;
    ports::SettingsRepository& settings;
    // Daily digests of notification rules in mode digest (both, or none: no digests).
    ports::NotificationRuleRepository* rules = nullptr;
    NotificationRunner* notifications = nullptr;
    // Renewals queued in transactions of kChunk: each one's job and certificate change commit
    // together, and once (null: each write on its own).
    ports::Transactions* transactions = nullptr;
  };
  Scheduler(Ports ports, SchedulerOptions options) : p_(ports), options_(options) {}

  // Takes or keeps the lease for `instance`: whether it leads now.
  domain::Result<bool> lead(const std::string& instance);
  // Gives the lease up (on shutdown), so a standby takes over without waiting for the TTL.
  domain::Status resign(const std::string& instance);
  // One sweep: renewal jobs for every due certificate (up to max_batches * batch), and on the
  // first sweep of a UTC day one expiry check per project.
  domain::Result<SweepReport> sweep();

 private:
  // Queues the renewals of `due` (a chunk of one sweep), counting into `counted` afresh.
  domain::Status queueRenewals(std::span<const domain::Certificate> due, domain::Timestamp now,
                               SweepReport& counted);
  domain::Status queueExpiryChecks(SweepReport& report);
  domain::Status queueRenewalInfoChecks(SweepReport& report);
  domain::Status queueStaleDistributions(SweepReport& report);
  domain::Status queueDigests(SweepReport& report);

  Ports p_;
  SchedulerOptions options_;
};

}  // namespace certsteward::services
