// Refresh tokens in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_refresh_token_store.hpp>

namespace certsteward::adapters::sqlite {

domain::Status SqliteRefreshTokenStore::issue(const domain::RefreshToken& t) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare(
         "INSERT INTO refresh_tokens (token_id, family_id, user_id, issued_at, expires_at, "
         "consumed, revoked) VALUES (?, ?, ?, ?, ?, ?, ?)")
        .bind(t.token_id)
        .bind(t.family_id)
        .bind(t.user_id)
        .bind(t.issued_at)
        .bind(t.expires_at)
        .bind(t.consumed)
        .bind(t.revoked)
        .run();
    // Expired tokens are of no use to anyone: drop them as new ones arrive.
    c->prepare("DELETE FROM refresh_tokens WHERE expires_at < ?").bind(t.issued_at).run();
    return {};
  });
}

domain::Result<domain::RefreshToken> SqliteRefreshTokenStore::consume(const std::string& tokenId,
                                                                      domain::Timestamp now) {
  return guarded([&]() -> domain::Result<domain::RefreshToken> {
    auto c = db_.writer();
    Transaction tx(*c, true);
    auto s = c->prepare(
        "SELECT token_id, family_id, user_id, issued_at, expires_at, consumed, revoked FROM "
        "refresh_tokens WHERE token_id = ?");
    s.bind(tokenId);
    if (!s.step()) {
      return domain::makeError(domain::ErrorCode::unauthenticated, "refresh token is not valid",
                               "TOKEN_INVALID");
    }
    domain::RefreshToken t{s.text(0),       s.text(1),         s.text(2),        *s.timestamp(3),
                           *s.timestamp(4), s.integer(5) != 0, s.integer(6) != 0};
    if (t.revoked || t.expires_at <= now) {
      return domain::makeError(domain::ErrorCode::unauthenticated, "refresh token is not valid",
                               "TOKEN_INVALID");
    }
    if (t.consumed) {
      c->prepare("UPDATE refresh_tokens SET revoked = 1 WHERE family_id = ?")
          .bind(t.family_id)
          .run();
      tx.commit();
      return domain::makeError(domain::ErrorCode::unauthenticated,
                               "refresh token was already used; all sessions of its login are "
                               "revoked",
                               "TOKEN_REUSE");
    }
    c->prepare("UPDATE refresh_tokens SET consumed = 1 WHERE token_id = ?").bind(tokenId).run();
    tx.commit();
    return t;
  });
}

domain::Status SqliteRefreshTokenStore::revokeFamily(const domain::Id& familyId) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare("UPDATE refresh_tokens SET revoked = 1 WHERE family_id = ?").bind(familyId).run();
    return {};
  });
}

domain::Status SqliteRefreshTokenStore::revokeUser(const domain::Id& userId) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare("UPDATE refresh_tokens SET revoked = 1 WHERE user_id = ?").bind(userId).run();
    return {};
  });
}

domain::Result<std::vector<domain::SessionSummary>> SqliteRefreshTokenStore::sessionsOf(
    const domain::Id& userId, domain::Timestamp now) {
  return guarded([&]() -> domain::Result<std::vector<domain::SessionSummary>> {
    auto c = db_.reader();
    auto s = c->prepare(
        "SELECT token_id, family_id, user_id, issued_at, expires_at, consumed, revoked FROM "
        "refresh_tokens WHERE user_id = ?");
    s.bind(userId);
    std::vector<domain::RefreshToken> mine;
    while (s.step()) {
      mine.push_back({s.text(0), s.text(1), s.text(2), *s.timestamp(3), *s.timestamp(4),
                      s.integer(5) != 0, s.integer(6) != 0});
    }
    return domain::liveSessions(mine, now);
  });
}

}  // namespace certsteward::adapters::sqlite
