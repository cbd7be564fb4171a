// Job logs in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_job_log_repository.hpp>

#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {

domain::Status PgJobLogRepository::append(const domain::JobLogEntry& entry) {
  return guarded([&]() -> domain::Status {
    db_.exec(q("INSERT INTO job_logs (job_id, ts, level, message) VALUES (?, ?, ?, ?)"),
             {p(entry.job_id), p(entry.ts), p(nameOf(entry.level)), freeText(entry.message)});
    return {};
  });
}

domain::Result<domain::Page<domain::JobLogEntry>> PgJobLogRepository::list(
    const domain::Id& jobId, const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::JobLogEntry>> {
    domain::Page<domain::JobLogEntry> page;
    page.page = request.page;
    page.page_size = request.page_size;
    auto done = db_.snapshot([&]() -> domain::Status {
      page.items.clear();  // afresh if the snapshot is run again
      page.total =
          db_.exec(q("SELECT COUNT(*) FROM job_logs WHERE job_id = ?"), {p(jobId)}).integer(0, 0);
      auto rows = db_.exec(q("SELECT ts, level, message FROM job_logs WHERE job_id = ? ORDER BY "
                             "seq LIMIT ? OFFSET ?"),
                           {p(jobId), p(request.page_size), p(request.offset())});
      for (int r = 0; r < rows.size(); ++r) {
        domain::JobLogEntry e;
        e.job_id = jobId;
        e.ts = *timestampAt(rows, r, 0);
        e.level = domain::parseLogLevel(rows.text(r, 1)).value_or(domain::LogLevel::info);
        e.message = rows.text(r, 2);
        page.items.push_back(std::move(e));
      }
      return {};
    });
    if (!done) return done.error();
    return page;
  });
}

}  // namespace certsteward::adapters::postgres
