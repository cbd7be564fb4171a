// Job logs in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_job_log_repository.hpp>

namespace certsteward::adapters::mongo {

domain::Status MongoJobLogRepository::append(const domain::JobLogEntry& e) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.insert("job_logs", Bson()
                             .str("job_id", e.job_id)
                             .ts("ts", e.ts)
                             .str("level", nameOf(e.level))
                             .str("message", e.message));
    return {};
  });
}

domain::Result<domain::Page<domain::JobLogEntry>> MongoJobLogRepository::list(
    const domain::Id& jobId, const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::JobLogEntry>> {
    auto c = db_.client();
    domain::Page<domain::JobLogEntry> page;
    page.page = request.page;
    page.page_size = request.page_size;
    page.total = c.count("job_logs", Bson().str("job_id", jobId));
    Bson opts;
    opts.doc("sort", Bson().i64("ts", 1).i64("_id", 1))
        .i64("skip", request.offset())
        .i64("limit", request.page_size);
    for (const auto& json : c.find("job_logs", Bson().str("job_id", jobId), opts)) {
      Bson doc = Bson::fromJson(json);
      domain::JobLogEntry entry;
      entry.job_id = jobId;
      bson_iter_t it;
      if (bson_iter_init_find(&it, doc.get(), "ts")) {
        entry.ts = domain::Timestamp{domain::Duration{bson_iter_as_int64(&it)}};
      }
      if (bson_iter_init_find(&it, doc.get(), "level") && BSON_ITER_HOLDS_UTF8(&it)) {
        entry.level =
            domain::parseLogLevel(bson_iter_utf8(&it, nullptr)).value_or(domain::LogLevel::info);
      }
      if (bson_iter_init_find(&it, doc.get(), "message") && BSON_ITER_HOLDS_UTF8(&it)) {
        entry.message = bson_iter_utf8(&it, nullptr);
      }
      page.items.push_back(std::move(entry));
    }
    return page;
  });
}

}  // namespace certsteward::adapters::mongo
