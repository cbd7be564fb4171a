// Projects in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_project_repository.hpp>

#include <certsteward/adapters/store/sqlite/sqlite_documents.hpp>

namespace certsteward::adapters::sqlite {

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
    return readDocument<domain::Project>(s, 0);
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

}  // namespace certsteward::adapters::sqlite
