// SqliteRefreshTokenStore: refresh tokens; consuming one runs in BEGIN IMMEDIATE, so exactly one
// of concurrent consumers succeeds, across threads and processes. Thread-safe.
#pragma once

#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/ports/refresh_token_store.hpp>

namespace certsteward::adapters::sqlite {

class SqliteRefreshTokenStore : public ports::RefreshTokenStore {
 public:
  explicit SqliteRefreshTokenStore(Database& db) : db_(db) {}
  domain::Status issue(const domain::RefreshToken& token) override;
  domain::Result<domain::RefreshToken> consume(const std::string& tokenId,
                                               domain::Timestamp now) override;
  domain::Status revokeFamily(const domain::Id& familyId) override;
  domain::Status revokeUser(const domain::Id& userId) override;
  domain::Result<std::vector<domain::SessionSummary>> sessionsOf(const domain::Id& userId,
                                                                 domain::Timestamp now) override;

 private:
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite
