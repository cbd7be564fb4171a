// Projects, users and memberships in SQLite.
#include "adapters/store/sqlite/sqlite_identity_repositories.hpp"

#include "adapters/store/codec/json_codec.hpp"

#include <functional>

namespace certsteward::adapters::sqlite {
namespace {

template <class T>
T read(const Statement& s, int column) {
  auto decoded = codec::decode<T>(s.text(column));
  if (!decoded) throw SqliteError(0, "stored document is corrupt");
  return std::move(*decoded);
}

domain::Error notFound(const char* what) {
  return domain::makeError(domain::ErrorCode::not_found, std::string(what) + " not found");
}

domain::Error conflict(const char* message) {
  return domain::makeError(domain::ErrorCode::conflict, message);
}

// Runs a write that may hit a UNIQUE constraint, reporting `message` for it.
template <class F>
domain::Status uniqueWrite(F&& body, const char* message) {
  try {
    return body();
  } catch (const SqliteError& e) {
    if ((e.code() & 0xff) == 19 /* SQLITE_CONSTRAINT */) return conflict(message);
    throw;
  }
}

template <class T>
domain::Page<T> pageOf(Connection& c, const std::string& countSql, const std::string& selectSql,
                       const domain::PageRequest& request,
                       const std::function<void(Statement&)>& bind) {
  domain::Page<T> page;
  page.page = request.page;
  page.page_size = request.page_size;
  auto count = c.prepare(countSql);
  bind(count);
  count.step();
  page.total = count.integer(0);
  auto s = c.prepare(selectSql);
  bind(s);
  s.bind(request.page_size).bind(request.offset());
  while (s.step())
    page.items.push_back(read<T>(s, 0));
  return page;
}

}  // namespace

// ---- projects ----
domain::Status SqliteProjectRepository::create(const domain::Project& p) {
  return guarded([&] {
    auto c = db_.writer();
    return uniqueWrite(
        [&]() -> domain::Status {
          c->prepare("INSERT INTO projects (id, name, doc) VALUES (?, ?, ?)")
              .bind(p.id)
              .bind(p.name)
              .bind(codec::encode(p))
              .run();
          return {};
        },
        "a project with this name or id exists");
  });
}

domain::Result<domain::Project> SqliteProjectRepository::get(const domain::Id& id) const {
  return guarded([&]() -> domain::Result<domain::Project> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT doc FROM projects WHERE id = ?");
    s.bind(id);
    if (!s.step()) return notFound("project");
    return read<domain::Project>(s, 0);
  });
}

domain::Result<domain::Page<domain::Project>> SqliteProjectRepository::list(
    const domain::PageRequest& request, const std::optional<std::vector<domain::Id>>& only) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::Project>> {
    std::string where = "1";
    if (only) {
      where = "id IN (SELECT value FROM json_each(?))";
    }
    std::string ids = "[";
    if (only) {
      for (const auto& id : *only) {
        if (!domain::isValidId(id)) continue;  // cannot match, and needs no JSON escaping
        if (ids.size() > 1) ids += ",";
        ids += "\"" + id + "\"";
      }
    }
    ids += "]";
    auto c = db_.reader();
    Transaction snapshot(*c, false);
    auto page = pageOf<domain::Project>(
        *c, "SELECT COUNT(*) FROM projects WHERE " + where,
        "SELECT doc FROM projects WHERE " + where + " ORDER BY id LIMIT ? OFFSET ?", request,
        [&](Statement& s) {
          if (only) s.bind(ids);
        });
    snapshot.commit();
    return page;
  });
}

domain::Status SqliteProjectRepository::update(const domain::Project& p) {
  return guarded([&] {
    auto c = db_.writer();
    return uniqueWrite(
        [&]() -> domain::Status {
          auto s = c->prepare("UPDATE projects SET name = ?, doc = ? WHERE id = ?");
          s.bind(p.name).bind(codec::encode(p)).bind(p.id);
          if (s.run() == 0) return notFound("project");
          return {};
        },
        "a project with this name exists");
  });
}

domain::Status SqliteProjectRepository::remove(const domain::Id& id) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    if (c->prepare("DELETE FROM projects WHERE id = ?").bind(id).run() == 0) {
      return notFound("project");
    }
    return {};
  });
}

// ---- users ----
domain::Status SqliteUserRepository::create(const domain::User& u) {
  return guarded([&] {
    auto c = db_.writer();
    return uniqueWrite(
        [&]() -> domain::Status {
          c->prepare("INSERT INTO users (id, username, doc) VALUES (?, ?, ?)")
              .bind(u.id)
              .bind(u.username)
              .bind(codec::encode(u))
              .run();
          return {};
        },
        "a user with this username or id exists");
  });
}

domain::Result<domain::User> SqliteUserRepository::get(const domain::Id& id) const {
  return guarded([&]() -> domain::Result<domain::User> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT doc FROM users WHERE id = ?");
    s.bind(id);
    if (!s.step()) return notFound("user");
    return read<domain::User>(s, 0);
  });
}

domain::Result<domain::User> SqliteUserRepository::getByUsername(
    const std::string& username) const {
  return guarded([&]() -> domain::Result<domain::User> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT doc FROM users WHERE username = ?");
    s.bind(username);
    if (!s.step()) return notFound("user");
    return read<domain::User>(s, 0);
  });
}

domain::Result<domain::Page<domain::User>> SqliteUserRepository::list(
    const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::User>> {
    auto c = db_.reader();
    Transaction snapshot(*c, false);
    auto page = pageOf<domain::User>(*c, "SELECT COUNT(*) FROM users",
                                     "SELECT doc FROM users ORDER BY id LIMIT ? OFFSET ?", request,
                                     [](Statement&) {});
    snapshot.commit();
    return page;
  });
}

domain::Status SqliteUserRepository::update(const domain::User& u) {
  return guarded([&] {
    auto c = db_.writer();
    return uniqueWrite(
        [&]() -> domain::Status {
          auto s = c->prepare("UPDATE users SET username = ?, doc = ? WHERE id = ?");
          s.bind(u.username).bind(codec::encode(u)).bind(u.id);
          if (s.run() == 0) return notFound("user");
          return {};
        },
        "a user with this username exists");
  });
}

domain::Status SqliteUserRepository::remove(const domain::Id& id) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    if (c->prepare("DELETE FROM users WHERE id = ?").bind(id).run() == 0) return notFound("user");
    return {};
  });
}

domain::Result<std::int64_t> SqliteUserRepository::count() const {
  return guarded([&]() -> domain::Result<std::int64_t> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT COUNT(*) FROM users");
    s.step();
    return s.integer(0);
  });
}

// ---- memberships ----
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
