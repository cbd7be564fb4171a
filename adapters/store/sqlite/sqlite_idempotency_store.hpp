// SqliteIdempotencyStore: idempotency records keyed by their key; a save runs in BEGIN
// IMMEDIATE and drops expired records first. Thread-safe.
#pragma once

#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/ports/idempotency_store.hpp>

namespace certsteward::adapters::sqlite {

class SqliteIdempotencyStore : public ports::IdempotencyStore {
 public:
  explicit SqliteIdempotencyStore(Database& db) : db_(db) {}
  domain::Result<std::optional<domain::IdempotencyRecord>> find(
      const std::string& key, domain::Timestamp now) const override;
  domain::Status save(const domain::IdempotencyRecord& record, domain::Timestamp now) override;

 private:
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite
