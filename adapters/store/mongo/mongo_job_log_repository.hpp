// MongoJobLogRepository: job log lines in the `job_logs` collection. Thread-safe: each call borrows
// a pooled client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/job_log_repository.hpp>

namespace certsteward::adapters::mongo {

class MongoJobLogRepository : public ports::JobLogRepository {
 public:
  explicit MongoJobLogRepository(MongoDatabase& db) : db_(db) {}
  domain::Status append(const domain::JobLogEntry& entry) override;
  domain::Result<domain::Page<domain::JobLogEntry>> list(
      const domain::Id& jobId, const domain::PageRequest& page) const override;

 private:
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo
