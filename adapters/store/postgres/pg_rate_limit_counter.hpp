// PgRateLimitCounter: one counter row per bucket and window, counted by one atomic upsert.
// Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/rate_limit_counter.hpp>

namespace certsteward::adapters::postgres {

class PgRateLimitCounter : public ports::RateLimitCounter {
 public:
  explicit PgRateLimitCounter(PgDatabase& db) : db_(db) {}
  domain::Result<std::int64_t> hit(const std::string& bucket, domain::Duration window,
                                   domain::Timestamp now) override;

 private:
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
