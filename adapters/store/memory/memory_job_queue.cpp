// In-memory job queue.
#include <certsteward/adapters/store/memory/memory_job_queue.hpp>

#include <vector>

#include <certsteward/adapters/store/memory/memory_transactions.hpp>
#include <certsteward/adapters/store/memory/paginate.hpp>

namespace certsteward::adapters::memory {

using domain::Job;
using domain::JobStatus;

namespace {
domain::Error duplicateKeyError() {
  return domain::makeError(domain::ErrorCode::conflict,
                           "another unfinished job has the same idempotency key");
}
}  // namespace

void MemoryJobQueue::unindex(const Job& job) {
  auto& lane = lanes_[job.lane()];
  lane.waiting.erase({job.next_run_at, job.id});
  if (job.lock_expires_at) lane.locked.erase({*job.lock_expires_at, job.id});
  if (!job.idempotency_key.empty()) {
    const auto it = unfinishedByKey_.find(job.idempotency_key);
    if (it != unfinishedByKey_.end() && it->second == job.id) unfinishedByKey_.erase(it);
  }
}

void MemoryJobQueue::store(const Job& job) {
  if (const auto it = jobs_.find(job.id); it != jobs_.end()) unindex(it->second);
  auto& lane = lanes_[job.lane()];
  if (job.status == JobStatus::pending || job.status == JobStatus::failed) {
    lane.waiting.insert({job.next_run_at, job.id});
  } else if (job.status == JobStatus::active && job.lock_expires_at) {
    lane.locked.insert({*job.lock_expires_at, job.id});
  }
  if (!job.idempotency_key.empty() && !domain::isTerminal(job.status)) {
    unfinishedByKey_[job.idempotency_key] = job.id;
  }
  jobs_[job.id] = job;
}

domain::Result<ports::EnqueueResult> MemoryJobQueue::enqueue(const Job& job) {
  std::lock_guard lock(mu_);
  if (!job.idempotency_key.empty()) {
    if (const auto it = unfinishedByKey_.find(job.idempotency_key); it != unfinishedByKey_.end()) {
      return ports::EnqueueResult{jobs_.at(it->second), false};
    }
  }
  if (jobs_.count(job.id) != 0) {
    return domain::makeError(domain::ErrorCode::conflict, "a job with this id exists");
  }
  store(job);
  undoInTransaction([this, id = job.id] {
    std::lock_guard relock(mu_);
    if (const auto it = jobs_.find(id); it != jobs_.end()) {
      unindex(it->second);
      jobs_.erase(it);
    }
  });
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
      if (filter.hide_dismissed && j.dismissed_at) continue;
      selected.push_back(j);
    }
  }
  return paginate(std::move(selected), page);
}

domain::Result<std::map<std::pair<domain::JobType, JobStatus>, std::int64_t>>
MemoryJobQueue::countByTypeAndStatus() const {
  std::lock_guard lock(mu_);
  std::map<std::pair<domain::JobType, JobStatus>, std::int64_t> counts;
  for (const auto& [id, j] : jobs_)
    ++counts[{j.type, j.status}];
  return counts;
}

domain::Result<ports::JobUpdate> MemoryJobQueue::applyLocked(Job& stored, domain::JobEvent event,
                                                             const domain::JobContext& ctx) {
  Job copy = stored;
  auto applied = domain::applyJobEvent(copy, event, ctx);
  if (!applied) return applied.error();
  if (!copy.idempotency_key.empty() && !domain::isTerminal(copy.status)) {
    const auto it = unfinishedByKey_.find(copy.idempotency_key);
    if (it != unfinishedByKey_.end() && it->second != copy.id) return duplicateKeyError();
  }
  undoInTransaction([this, old = stored] {
    std::lock_guard relock(mu_);
    store(old);
  });
  store(copy);
  return ports::JobUpdate{std::move(copy), *applied};
}

domain::Result<ports::ClaimResult> MemoryJobQueue::claim(domain::Lane lane,
                                                         const domain::JobContext& ctx) {
  std::lock_guard lock(mu_);
  auto& index = lanes_[lane];
  ports::ClaimResult result;
  // Expired locks first: their workers are gone. Each one is reclaimed or settled.
  while (!index.locked.empty() && index.locked.begin()->first <= ctx.now) {
    Job& job = jobs_.at(index.locked.begin()->second);
    auto update = applyLocked(job, domain::JobEvent::reclaim, ctx);
    if (!update) return update.error();  // cannot happen: the guards cover every expired job
    if (update->job.status == JobStatus::active) {
      result.claimed = update->job;
      return result;
    }
    result.settled.push_back(std::move(*update));
  }
  if (!index.waiting.empty() && index.waiting.begin()->first <= ctx.now) {
    Job& job = jobs_.at(index.waiting.begin()->second);
    auto update = applyLocked(job, domain::JobEvent::claim, ctx);
    if (!update) return update.error();
    result.claimed = update->job;
  }
  return result;
}

domain::Result<ports::JobUpdate> MemoryJobQueue::apply(const domain::Id& id, domain::JobEvent event,
                                                       const domain::JobContext& ctx) {
  std::lock_guard lock(mu_);
  const auto it = jobs_.find(id);
  if (it == jobs_.end()) return domain::makeError(domain::ErrorCode::not_found, "job not found");
  return applyLocked(it->second, event, ctx);
}

}  // namespace certsteward::adapters::memory
