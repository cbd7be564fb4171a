// Users in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_user_repository.hpp>

#include <certsteward/adapters/store/sqlite/sqlite_documents.hpp>

namespace certsteward::adapters::sqlite {

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
    return readDocument<domain::User>(s, 0);
  });
}

domain::Result<domain::User> SqliteUserRepository::getByUsername(
    const std::string& username) const {
  return guarded([&]() -> domain::Result<domain::User> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT doc FROM users WHERE username = ?");
    s.bind(username);
    if (!s.step()) return notFound("user");
    return readDocument<domain::User>(s, 0);
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

}  // namespace certsteward::adapters::sqlite
