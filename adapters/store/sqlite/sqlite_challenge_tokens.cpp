// HTTP-01 challenge tokens in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_challenge_tokens.hpp>

namespace certsteward::adapters::sqlite {

domain::Status SqliteChallengeTokens::put(const std::string& token,
                                          const std::string& keyAuthorization,
                                          domain::Timestamp expiresAt, domain::Timestamp now) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    Transaction tx(*c, true);
    c->prepare("DELETE FROM challenge_tokens WHERE expires_at <= ?").bind(now).run();
    c->prepare(
         "INSERT INTO challenge_tokens (token, key_authorization, expires_at) VALUES (?, ?, ?) "
         "ON CONFLICT (token) DO UPDATE SET key_authorization = excluded.key_authorization, "
         "expires_at = excluded.expires_at")
        .bind(token)
        .bind(keyAuthorization)
        .bind(expiresAt)
        .run();
    tx.commit();
    return {};
  });
}

domain::Result<std::optional<std::string>> SqliteChallengeTokens::find(
    const std::string& token, domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<std::string>> {
    auto c = db_.reader();
    auto s = c->prepare(
        "SELECT key_authorization FROM challenge_tokens WHERE token = ? AND expires_at > ?");
    s.bind(token).bind(now);
    if (!s.step()) return std::optional<std::string>{};
    return std::optional<std::string>(s.text(0));
  });
}

domain::Status SqliteChallengeTokens::remove(const std::string& token) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare("DELETE FROM challenge_tokens WHERE token = ?").bind(token).run();
    return {};
  });
}

}  // namespace certsteward::adapters::sqlite
