// SqliteJobQueue and SqliteJobLogRepository. Every change is a read-modify-write through the
// domain's job table inside BEGIN IMMEDIATE, so claims are atomic across threads and processes.
// Thread-safe.
#pragma once

#include "adapters/store/sqlite/sqlite_database.hpp"
#include "ports/event_log.hpp"
#include "ports/job_log_repository.hpp"
#include "ports/job_queue.hpp"

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

class SqliteJobLogRepository : public ports::JobLogRepository {
 public:
  explicit SqliteJobLogRepository(Database& db) : db_(db) {}

  domain::Status append(const domain::JobLogEntry& entry) override;
  domain::Result<domain::Page<domain::JobLogEntry>> list(
      const domain::Id& jobId, const domain::PageRequest& page) const override;

 private:
  Database& db_;
};

class SqliteEventLog : public ports::EventLog {
 public:
  explicit SqliteEventLog(Database& db) : db_(db) {}

  domain::Status record(const domain::Event& event) override;
  domain::Result<domain::Page<domain::Event>> list(const domain::Id& projectId,
                                                   const domain::PageRequest& page) const override;
  domain::Result<domain::Page<domain::Event>> listInOrder(
      const domain::Id& projectId, const domain::PageRequest& page) const override;

 private:
  domain::Result<domain::Page<domain::Event>> read(const domain::Id& projectId,
                                                   const domain::PageRequest& page,
                                                   bool inOrder) const;
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite
