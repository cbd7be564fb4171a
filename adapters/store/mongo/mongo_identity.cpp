// Projects, users, memberships and the resource lookups in MongoDB.
#include <algorithm>

#include "adapters/store/codec/resource_keys.hpp"
#include "adapters/store/mongo/mongo_repositories.hpp"

namespace certsteward::adapters::mongo {
namespace {

domain::Error notFound(const char* what) {
  return domain::makeError(domain::ErrorCode::not_found, std::string(what) + " not found");
}

template <class T>
Bson entityDoc(const T& e) {
  Bson doc = Bson::fromJson(codec::encode(e));
  doc.oid("_id", idOid(e.id));
  return doc;
}

template <class T>
domain::Page<T> pageOf(Client& c, const char* coll, const Bson& filter,
                       const domain::PageRequest& request) {
  domain::Page<T> page;
  page.page = request.page;
  page.page_size = request.page_size;
  page.total = c.count(coll, filter);
  Bson opts;
  opts.doc("sort", Bson().i64("id", 1))
      .i64("skip", request.offset())
      .i64("limit", request.page_size);
  for (const auto& json : c.find(coll, filter, opts))
    page.items.push_back(decodeOrThrow<T>(json));
  return page;
}

// True when another document (not `id`) has `field` == `value`. The unique index settles
// concurrent writers on a real MongoDB; this check gives the clear answer in the usual case.
bool taken(Client& c, const char* coll, const char* field, const std::string& value,
           const domain::Id& id) {
  Bson filter;
  filter.str(field, value).doc("_id", Bson().oid("$ne", idOid(id)));
  return c.findOne(coll, filter, Bson()).has_value();
}

}  // namespace

// ---- projects ----
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

// ---- users ----
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

// ---- memberships ----
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

// ---- resource lookups ----
MongoZoneRepository::MongoZoneRepository(MongoDatabase& db)
    : MongoResourceRepository(
          db, "zone", [](const domain::Zone& z) { return std::optional<std::string>(z.domain); }) {}

domain::Result<std::optional<domain::Zone>> MongoZoneRepository::findForName(
    const domain::Id& projectId, const std::string& name) const {
  // The name and each parent, longest first: one indexed lookup per label.
  for (const auto& candidate : domain::zoneCandidates(name)) {
    auto zones = byRef(projectId, candidate);
    if (!zones) return zones.error();
    if (!zones->empty()) return std::optional<domain::Zone>(zones->front());
  }
  return std::optional<domain::Zone>{};
}

MongoDistributionRepository::MongoDistributionRepository(MongoDatabase& db)
    : MongoResourceRepository(db, "distribution", [](const domain::Distribution& d) {
        return std::optional<std::string>(d.certificate_id);
      }) {}

domain::Result<std::vector<domain::Distribution>> MongoDistributionRepository::listForCertificate(
    const domain::Id& projectId, const domain::Id& certificateId) const {
  return byRef(projectId, certificateId);
}

MongoNotificationRuleRepository::MongoNotificationRuleRepository(MongoDatabase& db)
    : MongoResourceRepository(db, "notification_rule") {}

domain::Result<std::vector<domain::NotificationRule>> MongoNotificationRuleRepository::matching(
    const domain::Id& projectId, domain::EventKind kind) const {
  auto rules = byRef(projectId, std::nullopt);
  if (!rules) return rules.error();
  std::erase_if(*rules, [&](const domain::NotificationRule& r) {
    return !r.enabled || std::find(r.events.begin(), r.events.end(), kind) == r.events.end();
  });
  return rules;
}

MongoNotificationDeliveryRepository::MongoNotificationDeliveryRepository(MongoDatabase& db)
    : MongoResourceRepository(
          db, "notification_delivery",
          [](const domain::NotificationDelivery& d) {
            return std::optional<std::string>(d.channel_id);
          },
          &codec::heldDeliveryKey) {}

domain::Result<domain::Page<domain::NotificationDelivery>>
MongoNotificationDeliveryRepository::listForChannel(const domain::Id& projectId,
                                                    const domain::Id& channelId,
                                                    const domain::PageRequest& page) const {
  return pageByRefNewestFirst(projectId, channelId, page);
}

domain::Result<std::vector<domain::NotificationDelivery>>
MongoNotificationDeliveryRepository::heldForRule(const domain::Id& projectId,
                                                 const domain::Id& ruleId,
                                                 std::int64_t limit) const {
  return byRef2(projectId, ruleId, limit);
}

MongoNotificationStateRepository::MongoNotificationStateRepository(MongoDatabase& db)
    : MongoResourceRepository(db, "notification_state", [](const domain::NotificationState& s) {
        return std::optional<std::string>(codec::notificationStateKey(s.rule_id, s.subject));
      }) {}

domain::Result<std::optional<domain::NotificationState>> MongoNotificationStateRepository::find(
    const domain::Id& projectId, const domain::Id& ruleId, const domain::Id& subject) const {
  auto states = byRef(projectId, codec::notificationStateKey(ruleId, subject));
  if (!states) return states.error();
  if (states->empty()) return std::optional<domain::NotificationState>{};
  return std::optional<domain::NotificationState>(std::move(states->front()));
}

}  // namespace certsteward::adapters::mongo
