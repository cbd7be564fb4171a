// The leader lock in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_leader_lock.hpp>

namespace certsteward::adapters::sqlite {

domain::Result<bool> SqliteLeaderLock::tryAcquire(const std::string& name,
                                                  const std::string& holder, domain::Timestamp now,
                                                  domain::Duration ttl) {
  return guarded([&]() -> domain::Result<bool> {
    auto c = db_.writer();
    // One statement: take a free/expired lease or extend our own; a live foreign lease stays.
    auto s = c->prepare(
        "INSERT INTO leader_locks (name, holder, expires_at) VALUES (?, ?, ?) "
        "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = "
        "excluded.expires_at WHERE leader_locks.holder = excluded.holder OR "
        "leader_locks.expires_at <= ?");
    s.bind(name).bind(holder).bind(now + ttl).bind(now);
    return s.run() == 1;
  });
}

domain::Status SqliteLeaderLock::release(const std::string& name, const std::string& holder) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare("DELETE FROM leader_locks WHERE name = ? AND holder = ?")
        .bind(name)
        .bind(holder)
        .run();
    return {};
  });
}

domain::Result<std::optional<std::string>> SqliteLeaderLock::holder(const std::string& name,
                                                                    domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<std::string>> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT holder FROM leader_locks WHERE name = ? AND expires_at > ?");
    s.bind(name).bind(now);
    if (!s.step()) return std::optional<std::string>{};
    return std::optional<std::string>(s.text(0));
  });
}

}  // namespace certsteward::adapters::sqlite
