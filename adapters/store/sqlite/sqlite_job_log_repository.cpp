// Job logs in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_job_log_repository.hpp>

namespace certsteward::adapters::sqlite {

domain::Status SqliteJobLogRepository::append(const domain::JobLogEntry& entry) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare("INSERT INTO job_logs (job_id, ts, level, message) VALUES (?, ?, ?, ?)")
        .bind(entry.job_id)
        .bind(entry.ts)
        .bind(std::string(nameOf(entry.level)))
        .bind(entry.message)
        .run();
    return {};
  });
}

domain::Result<domain::Page<domain::JobLogEntry>> SqliteJobLogRepository::list(
    const domain::Id& jobId, const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::JobLogEntry>> {
    auto c = db_.reader();
    Transaction snapshot(*c, false);
    domain::Page<domain::JobLogEntry> page;
    page.page = request.page;
    page.page_size = request.page_size;
    auto count = c->prepare("SELECT COUNT(*) FROM job_logs WHERE job_id = ?");
    count.bind(jobId);
    count.step();
    page.total = count.integer(0);
    auto s = c->prepare(
        "SELECT ts, level, message FROM job_logs WHERE job_id = ? ORDER BY seq LIMIT ? OFFSET ?");
    s.bind(jobId).bind(request.page_size).bind(request.offset());
    while (s.step()) {
      domain::JobLogEntry e;
      e.job_id = jobId;
      e.ts = *s.timestamp(0);
      e.level = domain::parseLogLevel(s.text(1)).value_or(domain::LogLevel::info);
      e.message = s.text(2);
      page.items.push_back(std::move(e));
    }
    snapshot.commit();
    return page;
  });
}

}  // namespace certsteward::adapters::sqlite
