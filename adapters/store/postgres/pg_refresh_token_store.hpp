// PgRefreshTokenStore: refresh tokens; consuming one locks its row (SELECT ... FOR UPDATE), so
// exactly one of concurrent consumers succeeds, across threads and instances. Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/refresh_token_store.hpp>

namespace certsteward::adapters::postgres {

class PgRefreshTokenStore : public ports::RefreshTokenStore {
 public:
  explicit PgRefreshTokenStore(PgDatabase& db) : db_(db) {}
  domain::Status issue(const domain::RefreshToken& token) override;
  domain::Result<domain::RefreshToken> consume(const std::string& tokenId,
                                               domain::Timestamp now) override;
  domain::Status revokeFamily(const domain::Id& familyId) override;
  domain::Status revokeUser(const domain::Id& userId) override;
  domain::Result<std::vector<domain::SessionSummary>> sessionsOf(const domain::Id& userId,
                                                                 domain::Timestamp now) override;

 private:
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
