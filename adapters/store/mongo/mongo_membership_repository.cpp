// Memberships in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_membership_repository.hpp>

#include <certsteward/adapters/store/mongo/mongo_documents.hpp>

namespace certsteward::adapters::mongo {
namespace {

bson_oid_t membershipOid(const domain::Id& projectId, const domain::Id& userId) {
  return keyOid("membership|" + projectId + "|" + userId);
}

domain::Membership readMembership(const std::string& json) {
  Bson doc = Bson::fromJson(json);
  domain::Membership m;
  bson_iter_t it;
  const auto text = [&](const char* key) -> std::string {
    if (bson_iter_init_find(&it, doc.get(), key) && BSON_ITER_HOLDS_UTF8(&it)) {
      return bson_iter_utf8(&it, nullptr);
    }
    return {};
  };
  m.project_id = text("project_id");
  m.user_id = text("user_id");
  m.role = domain::parseProjectRole(text("role")).value_or(domain::ProjectRole::viewer);
  if (bson_iter_init_find(&it, doc.get(), "created_at")) {
    m.created_at = domain::Timestamp{domain::Duration{bson_iter_as_int64(&it)}};
  }
  return m;
}

}  // namespace

domain::Status MongoMembershipRepository::put(const domain::Membership& m) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    Bson filter;
    filter.oid("_id", membershipOid(m.project_id, m.user_id));
    // Keep the original created_at: set it only when the membership is new.
    if (c.updateOne("memberships", filter,
                    Bson().doc("$set", Bson().str("role", nameOf(m.role)))) == 0) {
      try {
        c.insert("memberships", Bson()
                                    .oid("_id", membershipOid(m.project_id, m.user_id))
                                    .str("project_id", m.project_id)
                                    .str("user_id", m.user_id)
                                    .str("role", nameOf(m.role))
                                    .ts("created_at", m.created_at));
      } catch (const MongoError& e) {
        if (!isDuplicateKey(e)) throw;
        c.updateOne("memberships", filter, Bson().doc("$set", Bson().str("role", nameOf(m.role))));
      }
    }
    return {};
  });
}

domain::Result<domain::Membership> MongoMembershipRepository::get(const domain::Id& projectId,
                                                                  const domain::Id& userId) const {
  return guarded([&]() -> domain::Result<domain::Membership> {
    auto c = db_.client();
    auto found =
        c.findOne("memberships", Bson().oid("_id", membershipOid(projectId, userId)), Bson());
    if (!found) return notFound("membership");
    return readMembership(*found);
  });
}

domain::Status MongoMembershipRepository::remove(const domain::Id& projectId,
                                                 const domain::Id& userId) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    if (c.deleteMany("memberships", Bson().oid("_id", membershipOid(projectId, userId))) == 0) {
      return notFound("membership");
    }
    return {};
  });
}

domain::Result<domain::Page<domain::Membership>> MongoMembershipRepository::listForProject(
    const domain::Id& projectId, const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::Membership>> {
    auto c = db_.client();
    domain::Page<domain::Membership> page;
    page.page = request.page;
    page.page_size = request.page_size;
    page.total = c.count("memberships", Bson().str("project_id", projectId));
    Bson opts;
    opts.doc("sort", Bson().i64("created_at", 1).i64("user_id", 1))
        .i64("skip", request.offset())
        .i64("limit", request.page_size);
    for (const auto& json : c.find("memberships", Bson().str("project_id", projectId), opts)) {
      page.items.push_back(readMembership(json));
    }
    return page;
  });
}

domain::Result<std::vector<domain::Membership>> MongoMembershipRepository::listForUser(
    const domain::Id& userId) const {
  return guarded([&]() -> domain::Result<std::vector<domain::Membership>> {
    auto c = db_.client();
    std::vector<domain::Membership> out;
    for (const auto& json : c.find("memberships", Bson().str("user_id", userId), Bson())) {
      out.push_back(readMembership(json));
    }
    return out;
  });
}

}  // namespace certsteward::adapters::mongo
