// MongoIdempotencyStore: idempotency records keyed by their key; a TTL index drops expired
// ones. Thread-safe: each call borrows a pooled client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/idempotency_store.hpp>

namespace certsteward::adapters::mongo {

class MongoIdempotencyStore : public ports::IdempotencyStore {
 public:
  explicit MongoIdempotencyStore(MongoDatabase& db) : db_(db) {}
  domain::Result<std::optional<domain::IdempotencyRecord>> find(
      const std::string& key, domain::Timestamp now) const override;
  domain::Status save(const domain::IdempotencyRecord& record, domain::Timestamp now) override;

 private:
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo
