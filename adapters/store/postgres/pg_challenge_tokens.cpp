// HTTP-01 challenge tokens in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_challenge_tokens.hpp>

#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {

domain::Status PgChallengeTokens::put(const std::string& token, const std::string& keyAuthorization,
                                      domain::Timestamp expiresAt, domain::Timestamp now) {
  return guarded([&]() -> domain::Status {
    // The upsert alone is atomic; the transaction only keeps the pruning with it, as in SQLite.
    return db_.transact({}, [&]() -> domain::Status {
      db_.exec(q("DELETE FROM challenge_tokens WHERE expires_at <= ?"), {p(now)});
      db_.exec(q("INSERT INTO challenge_tokens (token, key_authorization, expires_at) VALUES "
                 "(?, ?, ?) ON CONFLICT (token) DO UPDATE SET key_authorization = "
                 "EXCLUDED.key_authorization, expires_at = EXCLUDED.expires_at"),
               {p(token), p(keyAuthorization), p(expiresAt)});
      return {};
    });
  });
}

domain::Result<std::optional<std::string>> PgChallengeTokens::find(const std::string& token,
                                                                   domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<std::string>> {
    auto rows = db_.exec(
        q("SELECT key_authorization FROM challenge_tokens WHERE token = ? AND expires_at > ?"),
        {p(token), p(now)});
    if (rows.empty()) return std::optional<std::string>{};
    return std::optional<std::string>(rows.text(0, 0));
  });
}

domain::Status PgChallengeTokens::remove(const std::string& token) {
  return guarded([&]() -> domain::Status {
    db_.exec(q("DELETE FROM challenge_tokens WHERE token = ?"), {p(token)});
    return {};
  });
}

}  // namespace certsteward::adapters::postgres
