// PgChallengeTokens: HTTP-01 key authorizations keyed by their token; a put drops expired tokens
// first and writes in one upsert. Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/challenge_tokens.hpp>

namespace certsteward::adapters::postgres {

class PgChallengeTokens : public ports::ChallengeTokens {
 public:
  explicit PgChallengeTokens(PgDatabase& db) : db_(db) {}
  domain::Status put(const std::string& token, const std::string& keyAuthorization,
                     domain::Timestamp expiresAt, domain::Timestamp now) override;
  domain::Result<std::optional<std::string>> find(const std::string& token,
                                                  domain::Timestamp now) const override;
  domain::Status remove(const std::string& token) override;

 private:
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
