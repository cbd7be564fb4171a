// MongoJobQueue: jobs in the `jobs` collection. Every change is a compare-and-set on a revision
// (one findAndModify), so claims hold across instances. Thread-safe: each call borrows a pooled
// client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/job_queue.hpp>

namespace certsteward::adapters::mongo {

class MongoJobQueue : public ports::JobQueue {
 public:
  explicit MongoJobQueue(MongoDatabase& db) : db_(db) {}
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
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo
