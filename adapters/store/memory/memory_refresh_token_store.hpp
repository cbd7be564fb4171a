// MemoryRefreshTokenStore: refresh tokens by jti. Thread-safe.
#pragma once

#include <map>
#include <mutex>

#include <certsteward/ports/refresh_token_store.hpp>

namespace certsteward::adapters::memory {

class MemoryRefreshTokenStore : public ports::RefreshTokenStore {
 public:
  domain::Status issue(const domain::RefreshToken& token) override;
  domain::Result<domain::RefreshToken> consume(const std::string& tokenId,
                                               domain::Timestamp now) override;
  domain::Status revokeFamily(const domain::Id& familyId) override;
  domain::Status revokeUser(const domain::Id& userId) override;
  domain::Result<std::vector<domain::SessionSummary>> sessionsOf(const domain::Id& userId,
                                                                 domain::Timestamp now) override;

 private:
  mutable std::mutex mu_;
  std::map<std::string, domain::RefreshToken> tokens_;
};

}  // namespace certsteward::adapters::memory
