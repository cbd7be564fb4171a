// MemoryJobQueue: jobs in a map under one mutex, with per-lane indexes of due candidates
// (by next_run_at) and of held locks (by lock_expires_at), so a claim costs O(log n). Every
// change goes through the domain table, so claims are atomic across the threads of one
// process. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>

#include <certsteward/ports/job_queue.hpp>

namespace certsteward::adapters::memory {

class MemoryJobQueue : public ports::JobQueue {
 public:
  domain::Result<ports::EnqueueResult> enqueue(const domain::Job& job) override;
  domain::Result<domain::Job> get(const domain::Id& projectId, const domain::Id& id) const override;
  domain::Result<domain::Page<domain::Job>> list(const domain::Id& projectId,
                                                 const ports::JobFilter& filter,
                                                 const domain::PageRequest& page) const override;
  domain::Result<std::map<std::pair<domain::JobType, domain::JobStatus>, std::int64_t>>
  countByTypeAndStatus() const override;
  domain::Result<ports::ClaimResult> claim(domain::Lane lane,
                                           const domain::JobContext& ctx) override;
  domain::Result<ports::JobUpdate> apply(const domain::Id& id, domain::JobEvent event,
                                         const domain::JobContext& ctx) override;

 private:
  using Key = std::pair<domain::Timestamp, domain::Id>;
  struct LaneIndex {
    std::set<Key> waiting;  // pending and failed, by next_run_at
    std::set<Key> locked;   // active, by lock_expires_at
  };

  // Replaces the stored job (or inserts it), keeping the indexes in step. Caller holds mu_.
  void store(const domain::Job& job);
  void unindex(const domain::Job& job);
  // Applies `event` to the stored job and stores the result. Caller holds mu_.
  domain::Result<ports::JobUpdate> applyLocked(domain::Job& stored, domain::JobEvent event,
                                               const domain::JobContext& ctx);

  mutable std::mutex mu_;
  std::map<domain::Id, domain::Job> jobs_;
  std::map<domain::Lane, LaneIndex> lanes_;
  std::unordered_map<std::string, domain::Id> unfinishedByKey_;  // idempotency key -> job
};

}  // namespace certsteward::adapters::memory
