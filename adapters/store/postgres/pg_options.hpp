// The settings of the PostgreSQL store's connection pool (store.pool_size,
// store.statement_timeout), apart from the libpq layer so that the app can set them.
#pragma once

#include <chrono>
#include <cstddef>

namespace certsteward::adapters::postgres {

struct PgOptions {
  std::size_t pool_size = 8;  // connections at most (each opened when first needed)
  // Every statement's limit (statement_timeout), and how long a caller waits for a free
  // connection of the pool.
  std::chrono::milliseconds statement_timeout{10'000};
  std::chrono::milliseconds pool_wait{10'000};
  int connect_timeout_seconds = 5;  // unless the URL gives connect_timeout
  int transaction_attempts = 5;     // a body run again after a serialization failure or deadlock
};

}  // namespace certsteward::adapters::postgres
