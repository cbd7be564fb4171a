// Refresh tokens in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_refresh_token_store.hpp>

#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {
namespace {
// Row `r` of SELECT token_id, family_id, user_id, issued_at, expires_at, consumed, revoked.
domain::RefreshToken tokenRow(const Rows& rows, int r) {
  return {rows.text(r, 0),          rows.text(r, 1),          rows.text(r, 2),
          *timestampAt(rows, r, 3), *timestampAt(rows, r, 4), rows.integer(r, 5) != 0,
          rows.integer(r, 6) != 0};
}

domain::Error invalidToken() {
  return domain::makeError(domain::ErrorCode::unauthenticated, "refresh token is not valid",
                           "TOKEN_INVALID");
}
}  // namespace

domain::Status PgRefreshTokenStore::issue(const domain::RefreshToken& t) {
  return guarded([&]() -> domain::Status {
    db_.exec(q("INSERT INTO refresh_tokens (token_id, family_id, user_id, issued_at, expires_at, "
               "consumed, revoked) VALUES (?, ?, ?, ?, ?, ?, ?)"),
             {p(t.token_id), p(t.family_id), p(t.user_id), p(t.issued_at), p(t.expires_at),
              p(t.consumed), p(t.revoked)});
    // Expired tokens are of no use to anyone: drop them as new ones arrive.
    db_.exec(q("DELETE FROM refresh_tokens WHERE expires_at < ?"), {p(t.issued_at)});
    return {};
  });
}

domain::Result<domain::RefreshToken> PgRefreshTokenStore::consume(const std::string& tokenId,
                                                                  domain::Timestamp now) {
  return guarded([&]() -> domain::Result<domain::RefreshToken> {
    // The body returns ok in every case, so the reuse case commits the family's revocation;
    // what the caller gets is decided after the transaction from `outcome`.
    enum class Outcome { invalid, reused, consumed };
    Outcome outcome = Outcome::invalid;
    domain::RefreshToken t;
    auto done = db_.transact({}, [&]() -> domain::Status {
      outcome = Outcome::invalid;  // the body may run again
      // The row lock makes concurrent consumers of one token queue: the second reads the token
      // as the first left it (consumed), so exactly one succeeds.
      auto rows = db_.exec(q("SELECT token_id, family_id, user_id, issued_at, expires_at, "
                             "consumed, revoked FROM refresh_tokens WHERE token_id = ? FOR UPDATE"),
                           {p(tokenId)});
      if (rows.empty()) return {};
      t = tokenRow(rows, 0);
      if (t.revoked || t.expires_at <= now) return {};
      if (t.consumed) {
        db_.exec(q("UPDATE refresh_tokens SET revoked = true WHERE family_id = ?"),
                 {p(t.family_id)});
        outcome = Outcome::reused;
        return {};
      }
      db_.exec(q("UPDATE refresh_tokens SET consumed = true WHERE token_id = ?"), {p(tokenId)});
      outcome = Outcome::consumed;
      return {};
    });
    if (!done) return done.error();
    switch (outcome) {
      case Outcome::consumed:
        return t;
      case Outcome::reused:
        return domain::makeError(domain::ErrorCode::unauthenticated,
                                 "refresh token was already used; all sessions of its login are "
                                 "revoked",
                                 "TOKEN_REUSE");
      case Outcome::invalid:
        break;
    }
    return invalidToken();
  });
}

domain::Status PgRefreshTokenStore::revokeFamily(const domain::Id& familyId) {
  return guarded([&]() -> domain::Status {
    db_.exec(q("UPDATE refresh_tokens SET revoked = true WHERE family_id = ?"), {p(familyId)});
    return {};
  });
}

domain::Status PgRefreshTokenStore::revokeUser(const domain::Id& userId) {
  return guarded([&]() -> domain::Status {
    db_.exec(q("UPDATE refresh_tokens SET revoked = true WHERE user_id = ?"), {p(userId)});
    return {};
  });
}

domain::Result<std::vector<domain::SessionSummary>> PgRefreshTokenStore::sessionsOf(
    const domain::Id& userId, domain::Timestamp now) {
  return guarded([&]() -> domain::Result<std::vector<domain::SessionSummary>> {
    auto rows = db_.exec(q("SELECT token_id, family_id, user_id, issued_at, expires_at, consumed, "
                           "revoked FROM refresh_tokens WHERE user_id = ?"),
                         {p(userId)});
    std::vector<domain::RefreshToken> mine;
    mine.reserve(static_cast<std::size_t>(rows.size()));
    for (int r = 0; r < rows.size(); ++r)
      mine.push_back(tokenRow(rows, r));
    return domain::liveSessions(mine, now);
  });
}

}  // namespace certsteward::adapters::postgres
