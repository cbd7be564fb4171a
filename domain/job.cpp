// The job state machine. Every rule of the job table (docs/architecture.md) is a row of
// kTransitions.
#include <certsteward/domain/job.hpp>

#include <algorithm>
#include <array>

#include <certsteward/domain/enum_names.hpp>

namespace certsteward::domain {
namespace {

using SP = std::pair<JobStatus, std::string_view>;
constexpr auto kStatusNames =
    makeEnumNames<JobStatus>(SP{JobStatus::pending, "pending"}, SP{JobStatus::active, "active"},
                             SP{JobStatus::failed, "failed"}, SP{JobStatus::completed, "completed"},
                             SP{JobStatus::dead, "dead"}, SP{JobStatus::cancelled, "cancelled"});

using TP = std::pair<JobType, std::string_view>;
constexpr auto kTypeNames = makeEnumNames<JobType>(
    TP{JobType::issue_certificate, "issue_certificate"},
    TP{JobType::renew_certificate, "renew_certificate"},
    TP{JobType::msca_renew_certificate, "msca_renew_certificate"},
    TP{JobType::cleanup_dns, "cleanup_dns"},
    TP{JobType::certificate_expiration_check, "certificate_expiration_check"},
    TP{JobType::distribution_execute, "distribution_execute"},
    TP{JobType::distribution_rollback, "distribution_rollback"},
    TP{JobType::notification_delivery, "notification_delivery"},
    TP{JobType::check_renewal_info, "check_renewal_info"});

using LP = std::pair<Lane, std::string_view>;
constexpr auto kLaneNames =
    makeEnumNames<Lane>(LP{Lane::standard, "default"}, LP{Lane::distribution, "distribution"},
                        LP{Lane::notification, "notification"});

using EP = std::pair<JobEvent, std::string_view>;
constexpr auto kEventNames = makeEnumNames<JobEvent>(
    EP{JobEvent::claim, "claim"}, EP{JobEvent::reclaim, "reclaim"},
    EP{JobEvent::heartbeat, "heartbeat"}, EP{JobEvent::succeed, "succeed"},
    EP{JobEvent::fail, "fail"}, EP{JobEvent::shutdown_release, "shutdown_release"},
    EP{JobEvent::cancel, "cancel"}, EP{JobEvent::cancel_observed, "cancel_observed"},
    EP{JobEvent::retry, "retry"}, EP{JobEvent::defer, "defer"}, EP{JobEvent::abandon, "abandon"},
    EP{JobEvent::dismiss, "dismiss"});

using GP = std::pair<LogLevel, std::string_view>;
constexpr auto kLevelNames =
    makeEnumNames<LogLevel>(GP{LogLevel::debug, "debug"}, GP{LogLevel::info, "info"},
                            GP{LogLevel::warn, "warn"}, GP{LogLevel::error, "error"});

// ---- guards ----
bool always(const Job&, const JobContext&) {
  return true;
}
bool due(const Job& j, const JobContext& c) {
  return isDue(j, c.now);
}
bool holder(const Job& j, const JobContext& c) {
  return !c.worker.empty() && j.locked_by == c.worker;
}
bool holderWithAttemptsLeft(const Job& j, const JobContext& c) {
  return holder(j, c) && !j.cancel_requested && j.attempts < j.max_attempts && !c.final_failure;
}
bool holderExhausted(const Job& j, const JobContext& c) {
  return holder(j, c) && !j.cancel_requested && (j.attempts >= j.max_attempts || c.final_failure);
}
bool holderCancelRequested(const Job& j, const JobContext& c) {
  return holder(j, c) && j.cancel_requested;
}
bool holderLockLive(const Job& j, const JobContext& c) {
  return holder(j, c) && !isLockExpired(j, c.now);
}
bool expiredCancelRequested(const Job& j, const JobContext& c) {
  return isLockExpired(j, c.now) && j.cancel_requested;
}
bool expiredExhausted(const Job& j, const JobContext& c) {
  return isLockExpired(j, c.now) && !j.cancel_requested && j.attempts >= j.max_attempts;
}
bool expiredAttemptsLeft(const Job& j, const JobContext& c) {
  return isLockExpired(j, c.now) && !j.cancel_requested && j.attempts < j.max_attempts;
}

bool earlierBootLockLive(const Job& j, const JobContext& c) {
  return heldByEarlierBoot(j.locked_by, c.worker) && !isLockExpired(j, c.now);
}

// ---- effects ----
void touch(Job& j, const JobContext& c) {
  j.updated_at = c.now;
}
void clearLock(Job& j) {
  j.locked_by.clear();
  j.lock_expires_at.reset();
}
void lockForAttempt(Job& j, const JobContext& c) {
  j.locked_by = c.worker;
  j.lock_expires_at = c.now + c.policy.lock_ttl;
  j.attempts += 1;
  touch(j, c);
}
void extendLock(Job& j, const JobContext& c) {
  j.lock_expires_at = c.now + c.policy.lock_ttl;
  touch(j, c);
}
void finish(Job& j, const JobContext& c) {
  clearLock(j);
  j.finished_at = c.now;
  touch(j, c);
}
void complete(Job& j, const JobContext& c) {
  finish(j, c);
  j.error_msg.clear();
}
void scheduleRetry(Job& j, const JobContext& c) {
  clearLock(j);
  j.error_msg = c.error;
  j.next_run_at =
      std::max(c.now + retryBackoff(j.attempts, c.policy), c.not_before.value_or(Timestamp{}));
  touch(j, c);
}
void die(Job& j, const JobContext& c) {
  finish(j, c);
  j.error_msg = c.error;
}
void dieLockLost(Job& j, const JobContext& c) {
  finish(j, c);
  j.error_msg = "the worker stopped responding during the last attempt (lock expired)";
}
void releaseForShutdown(Job& j, const JobContext& c) {
  clearLock(j);
  j.attempts = std::max(0, j.attempts - 1);
  j.next_run_at = c.now;
  touch(j, c);
}
void deferUntil(Job& j, const JobContext& c) {
  clearLock(j);
  j.attempts = std::max(0, j.attempts - 1);
  j.error_msg = c.error;
  j.next_run_at = std::max(c.now, c.not_before.value_or(c.now));
  touch(j, c);
}
void expireLock(Job& j, const JobContext& c) {
  j.lock_expires_at = c.now;
  touch(j, c);
}
void requestCancel(Job& j, const JobContext& c) {
  j.cancel_requested = true;
  touch(j, c);
}
void cancelNow(Job& j, const JobContext& c) {
  finish(j, c);
  j.cancel_requested = false;
}
void runNow(Job& j, const JobContext& c) {
  j.next_run_at = c.now;
  touch(j, c);
}
void resetAndRunNow(Job& j, const JobContext& c) {
  j.attempts = 0;
  j.finished_at.reset();
  j.dismissed_at.reset();
  j.cancel_requested = false;
  runNow(j, c);
}

bool notDismissed(const Job& j, const JobContext&) {
  return !j.dismissed_at;
}
void dismissNow(Job& j, const JobContext& c) {
  j.dismissed_at = c.now;
  touch(j, c);
}

using S = JobStatus;
using E = JobEvent;

constexpr std::array kTransitions{
    JobTransition{S::pending, E::claim, due, "next_run_at has passed", S::active, lockForAttempt,
                  "locked_by, lock_expires_at = now + lock TTL, attempts + 1", std::nullopt},
    JobTransition{S::failed, E::claim, due, "next_run_at (the backoff) has passed", S::active,
                  lockForAttempt, "locked_by, lock_expires_at = now + lock TTL, attempts + 1",
                  std::nullopt},
    JobTransition{S::active, E::reclaim, expiredCancelRequested,
                  "lock expired and a cancel was requested", S::cancelled, cancelNow,
                  "lock cleared, finished_at = now", std::nullopt},
    JobTransition{S::active, E::reclaim, expiredExhausted, "lock expired, attempts exhausted",
                  S::dead, dieLockLost, "lock cleared, error_msg set", EventKind::job_failed},
    JobTransition{S::active, E::reclaim, expiredAttemptsLeft, "lock expired, attempts remain",
                  S::active, lockForAttempt, "re-locked by the new worker, attempts + 1",
                  std::nullopt},
    JobTransition{S::active, E::heartbeat, holderLockLive, "caller holds a live lock", S::active,
                  extendLock, "lock_expires_at = now + lock TTL", std::nullopt},
    JobTransition{S::active, E::succeed, holder, "caller holds the lock", S::completed, complete,
                  "lock cleared, finished_at = now", std::nullopt},
    JobTransition{S::active, E::fail, holderCancelRequested,
                  "caller holds the lock, cancel requested", S::cancelled, cancelNow,
                  "lock cleared, finished_at = now", std::nullopt},
    JobTransition{S::active, E::fail, holderWithAttemptsLeft,
                  "caller holds the lock, attempts < max_attempts, not final", S::failed,
                  scheduleRetry,
                  "lock cleared, error_msg, next_run_at = now + 30 s x 2^(attempts-1) (cap 10 "
                  "min), or not_before (the CA's Retry-After) when later",
                  std::nullopt},
    JobTransition{
        S::active, E::fail, holderExhausted,
        "caller holds the lock, attempts = max_attempts or a final failure (outside policy)",
        S::dead, die, "lock cleared, error_msg, finished_at = now", EventKind::job_failed},
    JobTransition{S::active, E::shutdown_release, holder, "caller holds the lock", S::pending,
                  releaseForShutdown, "lock cleared, attempts - 1, next_run_at = now",
                  std::nullopt},
    JobTransition{S::active, E::defer, holderCancelRequested,
                  "caller holds the lock, cancel requested", S::cancelled, cancelNow,
                  "lock cleared, finished_at = now", std::nullopt},
    JobTransition{S::active, E::defer, holder, "caller holds the lock", S::pending, deferUntil,
                  "lock cleared, attempts - 1, error_msg, next_run_at = not_before", std::nullopt},
    JobTransition{S::active, E::abandon, earlierBootLockLive,
                  "an earlier run of the caller's instance holds a live lock", S::active,
                  expireLock, "lock_expires_at = now (the next claim reclaims it)", std::nullopt},
    JobTransition{S::pending, E::cancel, always, "", S::cancelled, cancelNow, "finished_at = now",
                  std::nullopt},
    JobTransition{S::failed, E::cancel, always, "", S::cancelled, cancelNow, "finished_at = now",
                  std::nullopt},
    JobTransition{S::active, E::cancel, always, "", S::active, requestCancel,
                  "cancel_requested = true (the heartbeat sees it)", std::nullopt},
    JobTransition{S::active, E::cancel_observed, holderCancelRequested,
                  "caller holds the lock, cancel requested", S::cancelled, cancelNow,
                  "lock cleared, finished_at = now", std::nullopt},
    JobTransition{S::dead, E::retry, always, "", S::pending, resetAndRunNow,
                  "attempts = 0, next_run_at = now", std::nullopt},
    JobTransition{S::cancelled, E::retry, always, "", S::pending, resetAndRunNow,
                  "attempts = 0, next_run_at = now", std::nullopt},
    JobTransition{S::failed, E::retry, always, "", S::pending, runNow, "next_run_at = now",
                  std::nullopt},
    JobTransition{S::dead, E::dismiss, notDismissed, "not dismissed yet", S::dead, dismissNow,
                  "dismissed_at = now (a retry clears it)", std::nullopt},
};

}  // namespace

bool heldByEarlierBoot(std::string_view lockedBy, std::string_view self) noexcept {
  const auto held = lockedBy.substr(0, lockedBy.find('/'));  // "<instance>#<boot>"
  self = self.substr(0, self.find('/'));
  const auto heldMark = held.find('#');
  const auto selfMark = self.find('#');
  if (heldMark == std::string_view::npos || selfMark == std::string_view::npos) return false;
  if (heldMark == 0 || selfMark == 0) return false;  // no instance named
  return held.substr(0, heldMark) == self.substr(0, selfMark) && held != self;
}

std::string_view nameOf(JobStatus s) noexcept {
  return kStatusNames.name(s);
}
std::string_view nameOf(JobType t) noexcept {
  return kTypeNames.name(t);
}
std::string_view nameOf(Lane l) noexcept {
  return kLaneNames.name(l);
}
std::string_view nameOf(JobEvent e) noexcept {
  return kEventNames.name(e);
}
std::string_view nameOf(LogLevel l) noexcept {
  return kLevelNames.name(l);
}
std::optional<JobStatus> parseJobStatus(std::string_view t) noexcept {
  return kStatusNames.parse(t);
}
std::optional<JobType> parseJobType(std::string_view t) noexcept {
  return kTypeNames.parse(t);
}
std::optional<Lane> parseLane(std::string_view t) noexcept {
  return kLaneNames.parse(t);
}
std::optional<LogLevel> parseLogLevel(std::string_view t) noexcept {
  return kLevelNames.parse(t);
}

Lane laneOf(JobType type) noexcept {
  if (type == JobType::notification_delivery) return Lane::notification;
  return type == JobType::distribution_execute || type == JobType::distribution_rollback
             ? Lane::distribution
             : Lane::standard;
}

bool isTerminal(JobStatus s) noexcept {
  return s == JobStatus::completed || s == JobStatus::dead || s == JobStatus::cancelled;
}

Duration retryBackoff(int attempts, const JobPolicy& policy) {
  if (attempts < 1) attempts = 1;
  Duration delay = policy.backoff_base;
  for (int i = 1; i < attempts && delay < policy.backoff_cap; ++i)
    delay *= 2;
  return std::min(delay, policy.backoff_cap);
}

Job newJob(Id id, Id projectId, JobType type, Timestamp now, const JobPolicy& policy) {
  Job job;
  job.id = std::move(id);
  job.project_id = std::move(projectId);
  job.type = type;
  job.max_attempts = policy.max_attempts;
  job.created_at = now;
  job.updated_at = now;
  job.next_run_at = now;
  return job;
}

std::span<const JobTransition> jobTransitions() noexcept {
  return kTransitions;
}

Result<std::optional<EventKind>> applyJobEvent(Job& job, JobEvent event, const JobContext& ctx) {
  auto outcome = applyTransition(jobTransitions(), job, &Job::status, event, ctx);
  if (auto* raised = std::get_if<std::optional<EventKind>>(&outcome)) {
    // A dead notification delivery raises no job.failed: a broken channel would otherwise feed
    // itself (its delivery is listed dead with its error instead).
    if (job.type == JobType::notification_delivery) return std::optional<EventKind>{};
    return *raised;
  }
  std::string message = "cannot ";
  message += nameOf(event);
  message += " a job that is ";
  message += nameOf(job.status);
  if (std::get<TransitionMiss>(outcome) == TransitionMiss::guard_failed) {
    const bool lockIssue = (event == JobEvent::heartbeat || event == JobEvent::succeed ||
                            event == JobEvent::fail || event == JobEvent::shutdown_release ||
                            event == JobEvent::cancel_observed || event == JobEvent::defer) &&
                           job.locked_by != ctx.worker;
    message += lockIssue ? " and held by another worker" : " in its current state";
  }
  return makeError(ErrorCode::failed_precondition, std::move(message));
}

bool isDue(const Job& job, Timestamp now) noexcept {
  return (job.status == JobStatus::pending || job.status == JobStatus::failed) &&
         job.next_run_at <= now;
}

bool isLockExpired(const Job& job, Timestamp now) noexcept {
  return job.status == JobStatus::active && job.lock_expires_at && *job.lock_expires_at <= now;
}

bool isClaimable(const Job& job, Timestamp now) noexcept {
  return isDue(job, now) || isLockExpired(job, now);
}

std::vector<Job> fanOut(const Job& parent, std::int64_t itemCount, std::int64_t batchSize,
                        Timestamp now) {
  std::vector<Job> children;
  if (itemCount <= 0 || batchSize <= 0) return children;
  for (std::int64_t offset = 0; offset < itemCount; offset += batchSize) {
    Job child = newJob({}, parent.project_id, parent.type, now);
    child.max_attempts = parent.max_attempts;
    child.parent_id = parent.id;
    child.payload = parent.payload;
    child.payload["batch_offset"] = std::to_string(offset);
    child.payload["batch_limit"] = std::to_string(std::min(batchSize, itemCount - offset));
    children.push_back(std::move(child));
  }
  return children;
}

}  // namespace certsteward::domain
