// MongoRefreshTokenStore: refresh tokens, consumed by one atomic findAndModify; a TTL index
// drops expired ones. Thread-safe: each call borrows a pooled client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/refresh_token_store.hpp>

namespace certsteward::adapters::mongo {

class MongoRefreshTokenStore : public ports::RefreshTokenStore {
 public:
  explicit MongoRefreshTokenStore(MongoDatabase& db) : db_(db) {}
  domain::Status issue(const domain::RefreshToken& token) override;
  domain::Result<domain::RefreshToken> consume(const std::string& tokenId,
                                               domain::Timestamp now) override;
  domain::Status revokeFamily(const domain::Id& familyId) override;
  domain::Status revokeUser(const domain::Id& userId) override;
  domain::Result<std::vector<domain::SessionSummary>> sessionsOf(const domain::Id& userId,
                                                                 domain::Timestamp now) override;

 private:
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo
