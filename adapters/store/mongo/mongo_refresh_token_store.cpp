// Refresh tokens in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_refresh_token_store.hpp>

#include <certsteward/adapters/store/mongo/mongo_documents.hpp>

namespace certsteward::adapters::mongo {
namespace {

domain::RefreshToken read(const std::string& json) {
  Bson doc = Bson::fromJson(json);
  return domain::RefreshToken{textField(doc, "token_id"),
                              textField(doc, "family_id"),
                              textField(doc, "user_id"),
                              tsOf(intField(doc, "issued_at").value_or(0)),
                              tsOf(intField(doc, "expires_at").value_or(0)),
                              boolField(doc, "consumed"),
                              boolField(doc, "revoked")};
}

}  // namespace

domain::Status MongoRefreshTokenStore::issue(const domain::RefreshToken& t) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.insert("refresh_tokens", Bson()
                                   .oid("_id", keyOid("refresh|" + t.token_id))
                                   .str("token_id", t.token_id)
                                   .str("family_id", t.family_id)
                                   .str("user_id", t.user_id)
                                   .ts("issued_at", t.issued_at)
                                   .ts("expires_at", t.expires_at)
                                   .date("expire_at", t.expires_at)  // TTL index
                                   .boolean("consumed", t.consumed)
                                   .boolean("revoked", t.revoked));
    return {};
  });
}

domain::Result<domain::RefreshToken> MongoRefreshTokenStore::consume(const std::string& tokenId,
                                                                     domain::Timestamp now) {
  return guarded([&]() -> domain::Result<domain::RefreshToken> {
    auto c = db_.client();
    const bson_oid_t oid = keyOid("refresh|" + tokenId);
    const auto invalid = [] {
      return domain::makeError(domain::ErrorCode::unauthenticated, "refresh token is not valid",
                               "TOKEN_INVALID");
    };
    Bson filter;
    filter.oid("_id", oid)
        .boolean("consumed", false)
        .boolean("revoked", false)
        .doc("expires_at", Bson().ts("$gt", now));
    auto before =
        c.findAndModify("refresh_tokens", filter,
                        Bson().doc("$set", Bson().boolean("consumed", true)), false, false);
    if (before) return read(*before);
    auto found = c.findOne("refresh_tokens", Bson().oid("_id", oid), Bson());
    if (!found) return invalid();
    const auto token = read(*found);
    if (token.revoked || token.expires_at <= now || !token.consumed) return invalid();
    c.updateMany("refresh_tokens", Bson().str("family_id", token.family_id),
                 Bson().doc("$set", Bson().boolean("revoked", true)));
    return domain::makeError(domain::ErrorCode::unauthenticated,
                             "refresh token was already used; all sessions of its login are "
                             "revoked",
                             "TOKEN_REUSE");
  });
}

domain::Status MongoRefreshTokenStore::revokeFamily(const domain::Id& familyId) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.updateMany("refresh_tokens", Bson().str("family_id", familyId),
                 Bson().doc("$set", Bson().boolean("revoked", true)));
    return {};
  });
}

domain::Status MongoRefreshTokenStore::revokeUser(const domain::Id& userId) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.updateMany("refresh_tokens", Bson().str("user_id", userId),
                 Bson().doc("$set", Bson().boolean("revoked", true)));
    return {};
  });
}

domain::Result<std::vector<domain::SessionSummary>> MongoRefreshTokenStore::sessionsOf(
    const domain::Id& userId, domain::Timestamp now) {
  return guarded([&]() -> domain::Result<std::vector<domain::SessionSummary>> {
    auto c = db_.client();
    std::vector<domain::RefreshToken> mine;
    for (const auto& json : c.find("refresh_tokens", Bson().str("user_id", userId), Bson()))
      mine.push_back(read(json));
    return domain::liveSessions(mine, now);
  });
}

}  // namespace certsteward::adapters::mongo
