// Memberships in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_membership_repository.hpp>

#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {
namespace {
// Row `r` of SELECT project_id, user_id, role, created_at.
domain::Membership membershipRow(const Rows& rows, int r) {
  domain::Membership m;
  m.project_id = rows.text(r, 0);
  m.user_id = rows.text(r, 1);
  m.role = domain::parseProjectRole(rows.text(r, 2)).value_or(domain::ProjectRole::viewer);
  m.created_at = *timestampAt(rows, r, 3);
  return m;
}
}  // namespace

domain::Status PgMembershipRepository::put(const domain::Membership& m) {
  return guarded([&]() -> domain::Status {
    db_.exec(q("INSERT INTO memberships (project_id, user_id, role, created_at) VALUES "
               "(?, ?, ?, ?) ON CONFLICT (project_id, user_id) DO UPDATE SET role = EXCLUDED.role"),
             {p(m.project_id), p(m.user_id), p(nameOf(m.role)), p(m.created_at)});
    return {};
  });
}

domain::Result<domain::Membership> PgMembershipRepository::get(const domain::Id& projectId,
                                                               const domain::Id& userId) const {
  return guarded([&]() -> domain::Result<domain::Membership> {
    auto rows = db_.exec(q("SELECT project_id, user_id, role, created_at FROM memberships WHERE "
                           "project_id = ? AND user_id = ?"),
                         {p(projectId), p(userId)});
    if (rows.empty()) return notFound("membership");
    return membershipRow(rows, 0);
  });
}

domain::Status PgMembershipRepository::remove(const domain::Id& projectId,
                                              const domain::Id& userId) {
  return guarded([&]() -> domain::Status {
    if (db_.exec(q("DELETE FROM memberships WHERE project_id = ? AND user_id = ?"),
                 {p(projectId), p(userId)})
            .affected() == 0) {
      return notFound("membership");
    }
    return {};
  });
}

domain::Result<domain::Page<domain::Membership>> PgMembershipRepository::listForProject(
    const domain::Id& projectId, const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::Membership>> {
    domain::Page<domain::Membership> page;
    page.page = request.page;
    page.page_size = request.page_size;
    auto done = db_.snapshot([&]() -> domain::Status {
      page.items.clear();  // afresh if the snapshot is run again
      page.total =
          db_.exec(q("SELECT COUNT(*) FROM memberships WHERE project_id = ?"), {p(projectId)})
              .integer(0, 0);
      auto rows = db_.exec(q("SELECT project_id, user_id, role, created_at FROM memberships "
                             "WHERE project_id = ? ORDER BY created_at, user_id LIMIT ? OFFSET ?"),
                           {p(projectId), p(request.page_size), p(request.offset())});
      for (int r = 0; r < rows.size(); ++r)
        page.items.push_back(membershipRow(rows, r));
      return {};
    });
    if (!done) return done.error();
    return page;
  });
}

domain::Result<std::vector<domain::Membership>> PgMembershipRepository::listForUser(
    const domain::Id& userId) const {
  return guarded([&]() -> domain::Result<std::vector<domain::Membership>> {
    // Ordered as the other stores list them (by project), which SQLite's key order gave for free.
    auto rows = db_.exec(q("SELECT project_id, user_id, role, created_at FROM memberships WHERE "
                           "user_id = ? ORDER BY project_id"),
                         {p(userId)});
    std::vector<domain::Membership> out;
    out.reserve(static_cast<std::size_t>(rows.size()));
    for (int r = 0; r < rows.size(); ++r)
      out.push_back(membershipRow(rows, r));
    return out;
  });
}

}  // namespace certsteward::adapters::postgres
