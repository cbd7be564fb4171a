// SqliteRateLimitCounter: one counter row per bucket and window, counted in BEGIN IMMEDIATE.
// Thread-safe.
#pragma once

#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/ports/rate_limit_counter.hpp>

namespace certsteward::adapters::sqlite {

class SqliteRateLimitCounter : public ports::RateLimitCounter {
 public:
  explicit SqliteRateLimitCounter(Database& db) : db_(db) {}
  domain::Result<std::int64_t> hit(const std::string& bucket, domain::Duration window,
                                   domain::Timestamp now) override;

 private:
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite
