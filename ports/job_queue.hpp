// JobQueue: the durable queue of jobs. Every state change goes through the domain's job table
// (domain/job.hpp), applied atomically: two workers never hold the same job, across threads,
// processes and instances.
#pragma once

#include <map>
#include <optional>
#include <utility>
#include <vector>

#include <certsteward/domain/job.hpp>
#include <certsteward/domain/pagination.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

struct JobFilter {
  std::optional<domain::JobStatus> status;
  std::optional<domain::JobType> type;
  std::optional<domain::Id> certificate_id;
  bool hide_dismissed = false;  // leave out the jobs a person dismissed
};

struct EnqueueResult {
  domain::Job job;
  bool created = false;  // false: an unfinished job with the same idempotency key was returned
};

struct JobUpdate {
  domain::Job job;                          // as stored after the transition
  std::optional<domain::EventKind> raised;  // e.g. job.failed when it went dead
};

struct ClaimResult {
  std::optional<domain::Job> claimed;  // now active and held by the caller
  // Jobs with expired locks that the claim settled instead of running (dead or cancelled),
  // with the events they raised.
  std::vector<JobUpdate> settled;
};

class JobQueue {
 public:
  virtual ~JobQueue() = default;

  /**
   * Adds `job`. When job.idempotency_key is set and a pending, active or failed job carries the
   * same key, nothing is added and that job is returned (created = false).
   * @return conflict when the id exists. Thread-safe and atomic with respect to the key.
   */
  virtual domain::Result<EnqueueResult> enqueue(const domain::Job& job) = 0;

  /** @return the job; not_found when absent or in another project. */
  virtual domain::Result<domain::Job> get(const domain::Id& projectId,
                                          const domain::Id& id) const = 0;

  /** @return one page of the project's jobs matching `filter`, newest first. */
  virtual domain::Result<domain::Page<domain::Job>> list(const domain::Id& projectId,
                                                         const JobFilter& filter,
                                                         const domain::PageRequest& page) const = 0;

  /** @return how many jobs of each (type, status) exist in all projects (metrics); pairs without
   * jobs are absent. */
  virtual domain::Result<std::map<std::pair<domain::JobType, domain::JobStatus>, std::int64_t>>
  countByTypeAndStatus() const = 0;

  /**
   * Atomically claims one claimable job of `lane` (domain::isClaimable at ctx.now) for
   * ctx.worker: active jobs whose lock expired first (oldest lock first, `reclaim`), then the due
   * pending or failed job with the earliest next_run_at (`claim`). Expired jobs that the table
   * settles instead (dead, cancelled) are written and reported, and the search goes on.
   * @return the claim (claimed empty when nothing is due). Thread-safe.
   */
  virtual domain::Result<ClaimResult> claim(domain::Lane lane, const domain::JobContext& ctx) = 0;

  /**
   * Atomically applies `event` to job `id` through the domain table.
   * @return the stored job; not_found; failed_precondition when the table refuses (for worker
   * events this means the caller no longer holds the lock). Thread-safe.
   */
  virtual domain::Result<JobUpdate> apply(const domain::Id& id, domain::JobEvent event,
                                          const domain::JobContext& ctx) = 0;
};

}  // namespace certsteward::ports
