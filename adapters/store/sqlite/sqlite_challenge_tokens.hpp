// SqliteChallengeTokens: HTTP-01 key authorizations keyed by their token; a put runs in BEGIN
// IMMEDIATE and drops expired tokens first. Thread-safe.
#pragma once

#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/ports/challenge_tokens.hpp>

namespace certsteward::adapters::sqlite {

class SqliteChallengeTokens : public ports::ChallengeTokens {
 public:
  explicit SqliteChallengeTokens(Database& db) : db_(db) {}
  domain::Status put(const std::string& token, const std::string& keyAuthorization,
                     domain::Timestamp expiresAt, domain::Timestamp now) override;
  domain::Result<std::optional<std::string>> find(const std::string& token,
                                                  domain::Timestamp now) const override;
  domain::Status remove(const std::string& token) override;

 private:
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite
