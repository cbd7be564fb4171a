// MemoryJobQueue: jobs in a map under one mutex; every change goes through the domain table, so
// claims are atomic across the threads of one process. Thread-safe.
#pragma once

#include <map>
#include <mutex>

#include "ports/job_queue.hpp"

namespace certsteward::adapters::memory {

class MemoryJobQueue : public ports::JobQueue {
 public:
  domain::Result<ports::EnqueueResult> enqueue(const domain::Job& job) override;
  domain::Result<domain::Job> get(const domain::Id& projectId, const domain::Id& id) const override;
  domain::Result<domain::Page<domain::Job>> list(const domain::Id& projectId,
                                                 const ports::JobFilter& filter,
                                                 const domain::PageRequest& page) const override;
  domain::Result<ports::ClaimResult> claim(domain::Lane lane,
                                           const domain::JobContext& ctx) override;
  domain::Result<ports::JobUpdate> apply(const domain::Id& id, domain::JobEvent event,
                                         const domain::JobContext& ctx) override;

 private:
  mutable std::mutex mu_;
  std::map<domain::Id, domain::Job> jobs_;
};

}  // namespace certsteward::adapters::memory
