// In-memory job queue.
#include "adapters/store/memory/memory_job_queue.hpp"

#include <algorithm>
#include <tuple>
#include <vector>

#include "adapters/store/memory/paginate.hpp"

namespace certsteward::adapters::memory {

using domain::Job;

domain::Result<ports::EnqueueResult> MemoryJobQueue::enqueue(const Job& job) {
  std::lock_guard lock(mu_);
  if (!job.idempotency_key.empty()) {
    for (const auto& [id, existing] : jobs_) {
      if (existing.idempotency_key == job.idempotency_key && !domain::isTerminal(existing.status)) {
        return ports::EnqueueResult{existing, false};
      }
    }
  }
  if (!jobs_.emplace(job.id, job).second) {
    return domain::makeError(domain::ErrorCode::conflict, "a job with this id exists");
  }
  return ports::EnqueueResult{job, true};
}

domain::Result<Job> MemoryJobQueue::get(const domain::Id& projectId, const domain::Id& id) const {
  std::lock_guard lock(mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end() || it->second.project_id != projectId) {
    return domain::makeError(domain::ErrorCode::not_found, "job not found");
  }
  return it->second;
}

domain::Result<domain::Page<Job>> MemoryJobQueue::list(const domain::Id& projectId,
                                                       const ports::JobFilter& filter,
                                                       const domain::PageRequest& page) const {
  std::vector<Job> selected;
  {
    std::lock_guard lock(mu_);
    for (auto it = jobs_.rbegin(); it != jobs_.rend(); ++it) {  // ids sort by creation
      const Job& j = it->second;
      if (j.project_id != projectId) continue;
      if (filter.status && j.status != *filter.status) continue;
      if (filter.type && j.type != *filter.type) continue;
      if (filter.certificate_id && j.certificate_id != filter.certificate_id) continue;
      selected.push_back(j);
    }
  }
  return paginate(std::move(selected), page);
}

domain::Result<ports::ClaimResult> MemoryJobQueue::claim(domain::Lane lane,
                                                         const domain::JobContext& ctx) {
  std::lock_guard lock(mu_);
  std::vector<Job*> candidates;
  for (auto& [id, job] : jobs_) {
    if (job.lane() == lane && domain::isClaimable(job, ctx.now)) candidates.push_back(&job);
  }
  std::sort(candidates.begin(), candidates.end(), [](const Job* a, const Job* b) {
    return std::tie(a->next_run_at, a->id) < std::tie(b->next_run_at, b->id);
  });
  ports::ClaimResult result;
  for (Job* job : candidates) {
    const auto event = job->status == domain::JobStatus::active ? domain::JobEvent::reclaim
                                                                : domain::JobEvent::claim;
    auto applied = domain::applyJobEvent(*job, event, ctx);
    if (!applied) continue;
    if (job->status == domain::JobStatus::active) {
      result.claimed = *job;
      break;
    }
    result.settled.push_back(ports::JobUpdate{*job, *applied});
  }
  return result;
}

domain::Result<ports::JobUpdate> MemoryJobQueue::apply(const domain::Id& id, domain::JobEvent event,
                                                       const domain::JobContext& ctx) {
  std::lock_guard lock(mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) return domain::makeError(domain::ErrorCode::not_found, "job not found");
  Job copy = it->second;
  auto applied = domain::applyJobEvent(copy, event, ctx);
  if (!applied) return applied.error();
  it->second = copy;
  return ports::JobUpdate{std::move(copy), *applied};
}

}  // namespace certsteward::adapters::memory
