// SqliteJobQueue: jobs. Every change is a read-modify-write through the domain's job table
// inside BEGIN IMMEDIATE, so claims are atomic across threads and processes. Thread-safe.
#pragma once

#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/ports/job_queue.hpp>

namespace certsteward::adapters::sqlite {

class SqliteJobQueue : public ports::JobQueue {
 public:
  explicit SqliteJobQueue(Database& db) : db_(db) {}

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
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite
