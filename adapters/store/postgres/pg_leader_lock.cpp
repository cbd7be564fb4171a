// The leader lock in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_leader_lock.hpp>

#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {

domain::Result<bool> PgLeaderLock::tryAcquire(const std::string& name, const std::string& holder,
                                              domain::Timestamp now, domain::Duration ttl) {
  return guarded([&]() -> domain::Result<bool> {
    // One statement: take a free/expired lease or extend our own; a live foreign lease stays.
    // Two instances racing for one name queue on its row (or its key), and the second sees the
    // first's lease when its WHERE is checked.
    auto rows =
        db_.exec(q("INSERT INTO leader_locks (name, holder, expires_at) VALUES (?, ?, ?) "
                   "ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = "
                   "EXCLUDED.expires_at WHERE leader_locks.holder = EXCLUDED.holder OR "
                   "leader_locks.expires_at <= ?"),
                 {p(name), p(holder), p(now + ttl), p(now)});
    return rows.affected() == 1;
  });
}

domain::Status PgLeaderLock::release(const std::string& name, const std::string& holder) {
  return guarded([&]() -> domain::Status {
    db_.exec(q("DELETE FROM leader_locks WHERE name = ? AND holder = ?"), {p(name), p(holder)});
    return {};
  });
}

domain::Result<std::optional<std::string>> PgLeaderLock::holder(const std::string& name,
                                                                domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<std::string>> {
    auto rows = db_.exec(q("SELECT holder FROM leader_locks WHERE name = ? AND expires_at > ?"),
                         {p(name), p(now)});
    if (rows.empty()) return std::optional<std::string>{};
    return std::optional<std::string>(rows.text(0, 0));
  });
}

}  // namespace certsteward::adapters::postgres
