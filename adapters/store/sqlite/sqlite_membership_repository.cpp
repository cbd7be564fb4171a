// Memberships in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_membership_repository.hpp>

#include <certsteward/adapters/store/sqlite/sqlite_documents.hpp>

namespace certsteward::adapters::sqlite {
namespace {
domain::Membership readMembership(const Statement& s) {
  domain::Membership m;
  m.project_id = s.text(0);
  m.user_id = s.text(1);
  m.role = domain::parseProjectRole(s.text(2)).value_or(domain::ProjectRole::viewer);
  m.created_at = *s.timestamp(3);
  return m;
}
}  // namespace

domain::Status SqliteMembershipRepository::put(const domain::Membership& m) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare(
         "INSERT INTO memberships (project_id, user_id, role, created_at) VALUES (?, ?, ?, ?) "
         "ON CONFLICT (project_id, user_id) DO UPDATE SET role = excluded.role")
        .bind(m.project_id)
        .bind(m.user_id)
        .bind(std::string(nameOf(m.role)))
        .bind(m.created_at)
        .run();
    return {};
  });
}

domain::Result<domain::Membership> SqliteMembershipRepository::get(const domain::Id& projectId,
                                                                   const domain::Id& userId) const {
  return guarded([&]() -> domain::Result<domain::Membership> {
    auto c = db_.reader();
    auto s = c->prepare(
        "SELECT project_id, user_id, role, created_at FROM memberships WHERE project_id = ? AND "
        "user_id = ?");
    s.bind(projectId).bind(userId);
    if (!s.step()) return notFound("membership");
    return readMembership(s);
  });
}

domain::Status SqliteMembershipRepository::remove(const domain::Id& projectId,
                                                  const domain::Id& userId) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    if (c->prepare("DELETE FROM memberships WHERE project_id = ? AND user_id = ?")
            .bind(projectId)
            .bind(userId)
            .run() == 0) {
      return notFound("membership");
    }
    return {};
  });
}

domain::Result<domain::Page<domain::Membership>> SqliteMembershipRepository::listForProject(
    const domain::Id& projectId, const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::Membership>> {
    auto c = db_.reader();
    Transaction snapshot(*c, false);
    domain::Page<domain::Membership> page;
    page.page = request.page;
    page.page_size = request.page_size;
    auto count = c->prepare("SELECT COUNT(*) FROM memberships WHERE project_id = ?");
    count.bind(projectId);
    count.step();
    page.total = count.integer(0);
    auto s = c->prepare(
        "SELECT project_id, user_id, role, created_at FROM memberships WHERE project_id = ? "
        "ORDER BY created_at, user_id LIMIT ? OFFSET ?");
    s.bind(projectId).bind(request.page_size).bind(request.offset());
    while (s.step())
      page.items.push_back(readMembership(s));
    snapshot.commit();
    return page;
  });
}

domain::Result<std::vector<domain::Membership>> SqliteMembershipRepository::listForUser(
    const domain::Id& userId) const {
  return guarded([&]() -> domain::Result<std::vector<domain::Membership>> {
    auto c = db_.reader();
    auto s = c->prepare(
        "SELECT project_id, user_id, role, created_at FROM memberships WHERE user_id = ?");
    s.bind(userId);
    std::vector<domain::Membership> out;
    while (s.step())
      out.push_back(readMembership(s));
    return out;
  });
}

}  // namespace certsteward::adapters::sqlite
