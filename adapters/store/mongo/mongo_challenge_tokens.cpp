// HTTP-01 challenge tokens in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_challenge_tokens.hpp>

#include <certsteward/adapters/store/mongo/mongo_documents.hpp>

namespace certsteward::adapters::mongo {

domain::Status MongoChallengeTokens::put(const std::string& token,
                                         const std::string& keyAuthorization,
                                         domain::Timestamp expiresAt, domain::Timestamp) {
  // Expired tokens are left to the TTL index (expire_at); find never answers them meanwhile.
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.updateOne("challenge_tokens", Bson().oid("_id", keyOid("http01|" + token)),
                Bson().doc("$set", Bson()
                                       .str("token", token)
                                       .str("key_authorization", keyAuthorization)
                                       .ts("expires_at", expiresAt)
                                       .date("expire_at", expiresAt)),
                true);
    return {};
  });
}

domain::Result<std::optional<std::string>> MongoChallengeTokens::find(const std::string& token,
                                                                      domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<std::string>> {
    auto c = db_.client();
    Bson filter;
    filter.oid("_id", keyOid("http01|" + token)).doc("expires_at", Bson().ts("$gt", now));
    auto found = c.findOne("challenge_tokens", filter, Bson());
    if (!found) return std::optional<std::string>{};
    return std::optional<std::string>(textField(Bson::fromJson(*found), "key_authorization"));
  });
}

domain::Status MongoChallengeTokens::remove(const std::string& token) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.deleteMany("challenge_tokens", Bson().oid("_id", keyOid("http01|" + token)));
    return {};
  });
}

}  // namespace certsteward::adapters::mongo
