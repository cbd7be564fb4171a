// Jobs: the queued units of background work, and their state machine as one transition table.
//
// Statuses:
//   pending    waiting to be claimed once `next_run_at` has passed
//   active     held by a worker (`locked_by`) until `lock_expires_at`; a heartbeat extends it
//   failed     an attempt failed and attempts remain; claimable again at `next_run_at` (backoff)
//   completed  finished successfully (terminal)
//   dead       attempts exhausted (terminal until a manual retry); raises job.failed
//   cancelled  cancelled by a user (terminal until a manual retry)
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/events.hpp>
#include <certsteward/domain/id.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/state_machine.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

enum class JobStatus { pending, active, failed, completed, dead, cancelled };

enum class JobType {
  issue_certificate,
  renew_certificate,
  msca_renew_certificate,
  cleanup_dns,
  certificate_expiration_check,
  distribution_execute,
  distribution_rollback,
  notification_delivery,  // sends one NotificationDelivery (payload delivery_id)
  check_renewal_info,     // asks the CA for a certificate's renewal window again (RFC 9773)
};

// Worker lanes: distribution work and notification deliveries run on lanes of their own, so
// slow targets or a slow SMTP server never starve issuance.
enum class Lane { standard, distribution, notification };

std::string_view nameOf(JobStatus s) noexcept;
std::string_view nameOf(JobType t) noexcept;
std::string_view nameOf(Lane l) noexcept;
std::optional<JobStatus> parseJobStatus(std::string_view text) noexcept;
std::optional<JobType> parseJobType(std::string_view text) noexcept;
std::optional<Lane> parseLane(std::string_view text) noexcept;

Lane laneOf(JobType type) noexcept;
bool isTerminal(JobStatus s) noexcept;  // completed, dead, cancelled

// The numbers of the job table and limits (docs/architecture.md, State machines: Job).
struct JobPolicy {
  int max_attempts = 3;
  Duration lock_ttl = std::chrono::minutes{5};
  Duration backoff_base = std::chrono::seconds{30};
  Duration backoff_cap = std::chrono::minutes{10};
  Duration poll_interval = std::chrono::seconds{2};
  Duration shutdown_wait = std::chrono::seconds{55};
};

// Delay before the retry that follows the n-th failed attempt: base x 2^(n-1), capped.
Duration retryBackoff(int attempts, const JobPolicy& policy = {});

struct Job {
  Id id;
  Id project_id;
  JobType type = JobType::issue_certificate;
  JobStatus status = JobStatus::pending;
  int attempts = 0;
  int max_attempts = 3;
  std::string error_msg;
  std::optional<Id> certificate_id;
  std::optional<Id> parent_id;                 // set on the batch children of a fan-out
  std::string idempotency_key;                 // empty when none; see JobQueue::enqueue
  std::map<std::string, std::string> payload;  // type-specific parameters
  Timestamp created_at{};
  Timestamp updated_at{};
  Timestamp next_run_at{};
  std::string locked_by;  // empty unless active
  std::optional<Timestamp> lock_expires_at;
  bool cancel_requested = false;
  std::optional<Timestamp> finished_at;
  std::optional<Timestamp> dismissed_at;  // a person set the dead job aside (dashboard)

  Lane lane() const noexcept { return laneOf(type); }
};

// A new pending job, runnable at `now`.
Job newJob(Id id, Id projectId, JobType type, Timestamp now, const JobPolicy& policy = {});

enum class JobEvent {
  claim,             // a polling worker claims a pending/failed job that is due
  reclaim,           // a polling worker finds an active job whose lock has expired
  heartbeat,         // the holder extends its lock
  succeed,           // the holder reports success
  fail,              // the holder reports a failed attempt
  shutdown_release,  // the holder's shutdown deadline passed with the job unfinished
  cancel,            // a user cancels (POST cancel)
  cancel_observed,   // the holder saw cancel_requested at a heartbeat and stopped
  retry,             // a user retries (POST retry)
  defer,    // the holder did not start: a CA rate limit holds until not_before (not counted)
  abandon,  // the holder's instance started again: the process that held the lock is gone
  dismiss,  // a user sets a dead job aside: its failure was seen (the dashboard stops showing it)
};

// Worker ids are "<instance>#<boot>/<lane>-<n>": <instance> names a server instance across its
// restarts (host and listener), <boot> one run of its process. An instance that starts again
// (ctx.worker = "<instance>#<new boot>") abandons the locks its earlier runs left behind.
bool heldByEarlierBoot(std::string_view lockedBy, std::string_view self) noexcept;

std::string_view nameOf(JobEvent e) noexcept;

struct JobContext {
  Timestamp now{};
  std::string worker;  // the acting worker, for worker events
  std::string error;   // the failure text, for `fail` and `defer`
  JobPolicy policy{};
  // For `fail` and `defer`: the CA's Retry-After — the job is not run again before it.
  std::optional<Timestamp> not_before = std::nullopt;
  // For `fail`: retrying cannot help (the certificate is outside its project's policy): the job
  // ends dead whatever attempts remain.
  bool final_failure = false;
};

// One row of the job state machine.
using JobTransition = Transition<Job, JobStatus, JobEvent, JobContext>;

// The table, in the order rows are tried (first matching guard wins).
std::span<const JobTransition> jobTransitions() noexcept;

// Applies `event` to `job` in place. Returns the event kind raised, if any. Fails with
// failed_precondition (job untouched) when no row of the table allows it.
Result<std::optional<EventKind>> applyJobEvent(Job& job, JobEvent event, const JobContext& ctx);

// A pending or failed job whose `next_run_at` has passed.
bool isDue(const Job& job, Timestamp now) noexcept;
// An active job whose lock has expired (its worker is presumed dead).
bool isLockExpired(const Job& job, Timestamp now) noexcept;
// A worker may act on this job now: due, or active with an expired lock.
bool isClaimable(const Job& job, Timestamp now) noexcept;

// Fan-out: splits `itemCount` items of a parent job into batch children of at most
// `batchSize` items each (payload `batch_offset`, `batch_limit`, parent_id set). Ids are left
// empty for the caller to assign.
std::vector<Job> fanOut(const Job& parent, std::int64_t itemCount, std::int64_t batchSize,
                        Timestamp now);

inline constexpr std::int64_t kExpirationCheckBatchSize = 500;

enum class LogLevel { debug, info, warn, error };
std::string_view nameOf(LogLevel l) noexcept;
std::optional<LogLevel> parseLogLevel(std::string_view text) noexcept;

// A line of a job's log that a person can follow.
struct JobLogEntry {
  Id job_id;
  Timestamp ts{};
  LogLevel level = LogLevel::info;
  std::string message;
};

}  // namespace certsteward::domain
