// Users in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_user_repository.hpp>

#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {

domain::Status PgUserRepository::create(const domain::User& u) {
  return guarded([&]() -> domain::Status {
    if (!uniqueWrite(db_, "INSERT INTO users (id, username, doc) VALUES (?, ?, ?)",
                     {p(u.id), p(u.username), p(codec::encode(u))})) {
      return conflict("a user with this username or id exists");
    }
    return {};
  });
}

domain::Result<domain::User> PgUserRepository::get(const domain::Id& id) const {
  return guarded([&]() -> domain::Result<domain::User> {
    auto rows = db_.exec(q("SELECT doc FROM users WHERE id = ?"), {p(id)});
    if (rows.empty()) return notFound("user");
    return document<domain::User>(rows, 0, 0);
  });
}

domain::Result<domain::User> PgUserRepository::getByUsername(const std::string& username) const {
  return guarded([&]() -> domain::Result<domain::User> {
    auto rows = db_.exec(q("SELECT doc FROM users WHERE username = ?"), {p(username)});
    if (rows.empty()) return notFound("user");
    return document<domain::User>(rows, 0, 0);
  });
}

domain::Result<domain::Page<domain::User>> PgUserRepository::list(
    const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::User>> {
    return pageOf<domain::User>(db_, "SELECT COUNT(*) FROM users",
                                "SELECT doc FROM users ORDER BY id LIMIT ? OFFSET ?", {}, request);
  });
}

domain::Status PgUserRepository::update(const domain::User& u) {
  return guarded([&]() -> domain::Status {
    auto rows = uniqueWrite(db_, "UPDATE users SET username = ?, doc = ? WHERE id = ?",
                            {p(u.username), p(codec::encode(u)), p(u.id)});
    if (!rows) return conflict("a user with this username exists");
    if (rows->affected() == 0) return notFound("user");
    return {};
  });
}

domain::Status PgUserRepository::remove(const domain::Id& id) {
  return guarded([&]() -> domain::Status {
    if (db_.exec(q("DELETE FROM users WHERE id = ?"), {p(id)}).affected() == 0) {
      return notFound("user");
    }
    return {};
  });
}

domain::Result<std::int64_t> PgUserRepository::count() const {
  return guarded([&]() -> domain::Result<std::int64_t> {
    return db_.exec("SELECT COUNT(*) FROM users").integer(0, 0);
  });
}

}  // namespace certsteward::adapters::postgres
