// Users in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_user_repository.hpp>

#include <certsteward/adapters/store/mongo/mongo_documents.hpp>

namespace certsteward::adapters::mongo {

domain::Status MongoUserRepository::create(const domain::User& u) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    if (taken(c, "users", "username", u.username, u.id)) {
      return domain::makeError(domain::ErrorCode::conflict, "a user with this username exists");
    }
    c.insert("users", entityDoc(u));
    return {};
  });
}

domain::Result<domain::User> MongoUserRepository::get(const domain::Id& id) const {
  return guarded([&]() -> domain::Result<domain::User> {
    auto c = db_.client();
    auto found = c.findOne("users", Bson().oid("_id", idOid(id)), Bson());
    if (!found) return notFound("user");
    return decodeOrThrow<domain::User>(*found);
  });
}

domain::Result<domain::User> MongoUserRepository::getByUsername(const std::string& username) const {
  return guarded([&]() -> domain::Result<domain::User> {
    auto c = db_.client();
    auto found = c.findOne("users", Bson().str("username", username), Bson());
    if (!found) return notFound("user");
    return decodeOrThrow<domain::User>(*found);
  });
}

domain::Result<domain::Page<domain::User>> MongoUserRepository::list(
    const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::User>> {
    auto c = db_.client();
    return pageOf<domain::User>(c, "users", Bson(), request);
  });
}

domain::Status MongoUserRepository::update(const domain::User& u) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    if (taken(c, "users", "username", u.username, u.id)) {
      return domain::makeError(domain::ErrorCode::conflict, "a user with this username exists");
    }
    if (c.replaceOne("users", Bson().oid("_id", idOid(u.id)), entityDoc(u)) == 0) {
      return notFound("user");
    }
    return {};
  });
}

domain::Status MongoUserRepository::remove(const domain::Id& id) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    if (c.deleteMany("users", Bson().oid("_id", idOid(id))) == 0) return notFound("user");
    return {};
  });
}

domain::Result<std::int64_t> MongoUserRepository::count() const {
  return guarded([&]() -> domain::Result<std::int64_t> {
    auto c = db_.client();
    return c.count("users", Bson());
  });
}

}  // namespace certsteward::adapters::mongo
