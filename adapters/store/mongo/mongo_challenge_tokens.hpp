// MongoChallengeTokens: HTTP-01 key authorizations keyed by their token; a TTL index drops
// expired ones. Thread-safe: each call borrows a pooled client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/challenge_tokens.hpp>

namespace certsteward::adapters::mongo {

class MongoChallengeTokens : public ports::ChallengeTokens {
 public:
  explicit MongoChallengeTokens(MongoDatabase& db) : db_(db) {}
  domain::Status put(const std::string& token, const std::string& keyAuthorization,
                     domain::Timestamp expiresAt, domain::Timestamp now) override;
  domain::Result<std::optional<std::string>> find(const std::string& token,
                                                  domain::Timestamp now) const override;
  domain::Status remove(const std::string& token) override;

 private:
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo
