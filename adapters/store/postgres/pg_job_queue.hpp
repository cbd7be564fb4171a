// PgJobQueue: jobs. A claim takes the next due job with FOR UPDATE SKIP LOCKED, so workers of
// every instance claim different jobs without waiting on each other. Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/job_queue.hpp>

namespace certsteward::adapters::postgres {

class PgJobQueue : public ports::JobQueue {
 public:
  explicit PgJobQueue(PgDatabase& db) : db_(db) {}

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
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
