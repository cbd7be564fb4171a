// PgIdempotencyStore: idempotency records keyed by their key; a save drops expired records and
// inserts in one transaction, and of concurrent saves of one key exactly one succeeds.
// Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/idempotency_store.hpp>

namespace certsteward::adapters::postgres {

class PgIdempotencyStore : public ports::IdempotencyStore {
 public:
  explicit PgIdempotencyStore(PgDatabase& db) : db_(db) {}
  domain::Result<std::optional<domain::IdempotencyRecord>> find(
      const std::string& key, domain::Timestamp now) const override;
  domain::Status save(const domain::IdempotencyRecord& record, domain::Timestamp now) override;

 private:
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
