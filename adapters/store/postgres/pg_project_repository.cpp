// Projects in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_project_repository.hpp>

#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {

domain::Status PgProjectRepository::create(const domain::Project& project) {
  return guarded([&]() -> domain::Status {
    if (!uniqueWrite(db_, "INSERT INTO projects (id, name, doc) VALUES (?, ?, ?)",
                     {p(project.id), p(project.name), p(codec::encode(project))})) {
      return conflict("a project with this name or id exists");
    }
    return {};
  });
}

domain::Result<domain::Project> PgProjectRepository::get(const domain::Id& id) const {
  return guarded([&]() -> domain::Result<domain::Project> {
    auto rows = db_.exec(q("SELECT doc FROM projects WHERE id = ?"), {p(id)});
    if (rows.empty()) return notFound("project");
    return document<domain::Project>(rows, 0, 0);
  });
}

domain::Result<domain::Page<domain::Project>> PgProjectRepository::list(
    const domain::PageRequest& request, const std::optional<std::vector<domain::Id>>& only) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::Project>> {
    std::string where = "TRUE";
    std::vector<Param> params;
    if (only) {
      where = "id = ANY(?::text[])";
      std::string ids = "{";
      for (const auto& id : *only) {
        if (!domain::isValidId(id)) continue;  // cannot match, and needs no array escaping
        if (ids.size() > 1) ids += ",";
        ids += id;
      }
      ids += "}";
      params.push_back(p(ids));
    }
    return pageOf<domain::Project>(
        db_, "SELECT COUNT(*) FROM projects WHERE " + where,
        "SELECT doc FROM projects WHERE " + where + " ORDER BY id LIMIT ? OFFSET ?", params,
        request);
  });
}

domain::Status PgProjectRepository::update(const domain::Project& project) {
  return guarded([&]() -> domain::Status {
    auto rows = uniqueWrite(db_, "UPDATE projects SET name = ?, doc = ? WHERE id = ?",
                            {p(project.name), p(codec::encode(project)), p(project.id)});
    if (!rows) return conflict("a project with this name exists");
    if (rows->affected() == 0) return notFound("project");
    return {};
  });
}

domain::Status PgProjectRepository::remove(const domain::Id& id) {
  return guarded([&]() -> domain::Status {
    if (db_.exec(q("DELETE FROM projects WHERE id = ?"), {p(id)}).affected() == 0) {
      return notFound("project");
    }
    return {};
  });
}

}  // namespace certsteward::adapters::postgres
