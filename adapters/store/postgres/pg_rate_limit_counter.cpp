// Rate-limit counters in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_rate_limit_counter.hpp>

#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {

domain::Result<std::int64_t> PgRateLimitCounter::hit(const std::string& bucket,
                                                     domain::Duration window,
                                                     domain::Timestamp now) {
  if (window <= domain::Duration::zero()) {
    return domain::makeError(domain::ErrorCode::invalid_argument, "window must be positive");
  }
  return guarded([&]() -> domain::Result<std::int64_t> {
    const auto since = now.time_since_epoch();
    const domain::Timestamp start{since - since % window};
    // One statement, atomic across instances: concurrent hits of one window queue on its row.
    const std::int64_t count =
        db_.exec(q("INSERT INTO rate_limits (bucket, window_start, window_end, count) VALUES "
                   "(?, ?, ?, 1) ON CONFLICT (bucket, window_start) DO UPDATE SET count = "
                   "rate_limits.count + 1 RETURNING count"),
                 {p(bucket), p(start), p(start + window)})
            .integer(0, 0);
    if (count == 1) {
      // A window started: past windows are dropped now rather than on every hit, which keeps
      // the hot path one statement. The hit is counted whatever this does: a failed pruning
      // (two instances pruning at once can deadlock) is left to the next window.
      try {
        db_.execRecoverable(q("DELETE FROM rate_limits WHERE window_end <= ?"), {p(now)});
      } catch (const PgError&) {
      }
    }
    return count;
  });
}

}  // namespace certsteward::adapters::postgres
