// In-memory refresh tokens with reuse detection.
#include <certsteward/adapters/store/memory/memory_refresh_token_store.hpp>

namespace certsteward::adapters::memory {

domain::Status MemoryRefreshTokenStore::issue(const domain::RefreshToken& token) {
  std::lock_guard lock(mu_);
  if (!tokens_.emplace(token.token_id, token).second) {
    return domain::makeError(domain::ErrorCode::conflict, "refresh token id exists");
  }
  return {};
}

domain::Result<domain::RefreshToken> MemoryRefreshTokenStore::consume(const std::string& tokenId,
                                                                      domain::Timestamp now) {
  std::lock_guard lock(mu_);
  const auto it = tokens_.find(tokenId);
  if (it == tokens_.end() || it->second.revoked || it->second.expires_at <= now) {
    return domain::makeError(domain::ErrorCode::unauthenticated, "refresh token is not valid",
                             "TOKEN_INVALID");
  }
  if (it->second.consumed) {
    const domain::Id family = it->second.family_id;
    for (auto& [id, t] : tokens_) {
      if (t.family_id == family) t.revoked = true;
    }
    return domain::makeError(domain::ErrorCode::unauthenticated,
                             "refresh token was already used; all sessions of its login are "
                             "revoked",
                             "TOKEN_REUSE");
  }
  domain::RefreshToken before = it->second;
  it->second.consumed = true;
  return before;
}

domain::Status MemoryRefreshTokenStore::revokeFamily(const domain::Id& familyId) {
  std::lock_guard lock(mu_);
  for (auto& [id, t] : tokens_) {
    if (t.family_id == familyId) t.revoked = true;
  }
  return {};
}

domain::Status MemoryRefreshTokenStore::revokeUser(const domain::Id& userId) {
  std::lock_guard lock(mu_);
  for (auto& [id, t] : tokens_) {
    if (t.user_id == userId) t.revoked = true;
  }
  return {};
}

domain::Result<std::vector<domain::SessionSummary>> MemoryRefreshTokenStore::sessionsOf(
    const domain::Id& userId, domain::Timestamp now) {
  std::lock_guard lock(mu_);
  std::vector<domain::RefreshToken> mine;
  for (const auto& [id, t] : tokens_) {
    if (t.user_id == userId) mine.push_back(t);
  }
  return domain::liveSessions(mine, now);
}

}  // namespace certsteward::adapters::memory
