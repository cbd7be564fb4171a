// PgJobLogRepository: job log lines in write order. Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/job_log_repository.hpp>

namespace certsteward::adapters::postgres {

class PgJobLogRepository : public ports::JobLogRepository {
 public:
  explicit PgJobLogRepository(PgDatabase& db) : db_(db) {}

  domain::Status append(const domain::JobLogEntry& entry) override;
  domain::Result<domain::Page<domain::JobLogEntry>> list(
      const domain::Id& jobId, const domain::PageRequest& page) const override;

 private:
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
