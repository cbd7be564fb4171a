// Projects in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_project_repository.hpp>

#include <certsteward/adapters/store/mongo/mongo_documents.hpp>

namespace certsteward::adapters::mongo {

domain::Status MongoProjectRepository::create(const domain::Project& p) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    if (taken(c, "projects", "name", p.name, p.id)) {
      return domain::makeError(domain::ErrorCode::conflict, "a project with this name exists");
    }
    c.insert("projects", entityDoc(p));
    return {};
  });
}

domain::Result<domain::Project> MongoProjectRepository::get(const domain::Id& id) const {
  return guarded([&]() -> domain::Result<domain::Project> {
    auto c = db_.client();
    auto found = c.findOne("projects", Bson().oid("_id", idOid(id)), Bson());
    if (!found) return notFound("project");
    return decodeOrThrow<domain::Project>(*found);
  });
}

domain::Result<domain::Page<domain::Project>> MongoProjectRepository::list(
    const domain::PageRequest& request, const std::optional<std::vector<domain::Id>>& only) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::Project>> {
    auto c = db_.client();
    Bson filter;
    if (only) filter.doc("id", Bson().strings("$in", *only));
    return pageOf<domain::Project>(c, "projects", filter, request);
  });
}

domain::Status MongoProjectRepository::update(const domain::Project& p) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    if (taken(c, "projects", "name", p.name, p.id)) {
      return domain::makeError(domain::ErrorCode::conflict, "a project with this name exists");
    }
    if (c.replaceOne("projects", Bson().oid("_id", idOid(p.id)), entityDoc(p)) == 0) {
      return notFound("project");
    }
    return {};
  });
}

domain::Status MongoProjectRepository::remove(const domain::Id& id) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    if (c.deleteMany("projects", Bson().oid("_id", idOid(id))) == 0) return notFound("project");
    return {};
  });
}

}  // namespace certsteward::adapters::mongo
