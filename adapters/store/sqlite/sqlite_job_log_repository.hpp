// SqliteJobLogRepository: job log lines in write order. Thread-safe.
#pragma once

#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/ports/job_log_repository.hpp>

namespace certsteward::adapters::sqlite {

class SqliteJobLogRepository : public ports::JobLogRepository {
 public:
  explicit SqliteJobLogRepository(Database& db) : db_(db) {}

  domain::Status append(const domain::JobLogEntry& entry) override;
  domain::Result<domain::Page<domain::JobLogEntry>> list(
      const domain::Id& jobId, const domain::PageRequest& page) const override;

 private:
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite
