// Rate-limit counters in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_rate_limit_counter.hpp>

namespace certsteward::adapters::sqlite {

domain::Result<std::int64_t> SqliteRateLimitCounter::hit(const std::string& bucket,
                                                         domain::Duration window,
                                                         domain::Timestamp now) {
  if (window <= domain::Duration::zero()) {
    return domain::makeError(domain::ErrorCode::invalid_argument, "window must be positive");
  }
  return guarded([&]() -> domain::Result<std::int64_t> {
    const auto since = now.time_since_epoch();
    const domain::Timestamp start{since - since % window};
    auto c = db_.writer();
    Transaction tx(*c, true);
    c->prepare("DELETE FROM rate_limits WHERE window_end <= ?").bind(now).run();
    auto s = c->prepare(
        "INSERT INTO rate_limits (bucket, window_start, window_end, count) VALUES (?, ?, ?, 1) "
        "ON CONFLICT (bucket, window_start) DO UPDATE SET count = count + 1 RETURNING count");
    s.bind(bucket).bind(start).bind(start + window);
    s.step();
    const std::int64_t count = s.integer(0);
    s.run();
    tx.commit();
    return count;
  });
}

}  // namespace certsteward::adapters::sqlite
