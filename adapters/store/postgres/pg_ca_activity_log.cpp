// CA activity in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_ca_activity_log.hpp>

#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {
namespace {
// Row `r` of SELECT id, at, project_id, account_id, retry_until, detail.
domain::CaActivity activityRow(const Rows& rows, int r, const std::string& directoryUrl,
                               const std::string& registeredDomain, domain::CaActivityKind kind) {
  domain::CaActivity a;
  a.id = rows.text(r, 0);
  a.directory_url = directoryUrl;
  a.registered_domain = registeredDomain;
  a.kind = kind;
  a.at = timestampAt(rows, r, 1).value_or(domain::Timestamp{});
  a.project_id = rows.text(r, 2);
  a.account_id = rows.text(r, 3);
  a.retry_until = timestampAt(rows, r, 4);
  a.detail = rows.text(r, 5);
  return a;
}
}  // namespace

domain::Status PgCaActivityLog::record(const domain::CaActivity& a) {
  return guarded([&]() -> domain::Status {
    // The pruning and the record in one transaction, as in SQLite; two instances pruning the
    // same rows queue on their row locks, and the second finds them gone.
    return db_.transact({}, [&]() -> domain::Status {
      db_.exec(q("DELETE FROM ca_activity WHERE at < ?"), {p(a.at - domain::kCaActivityRetention)});
      db_.exec(q("INSERT INTO ca_activity (id, directory_url, registered_domain, kind, at, "
                 "project_id, account_id, retry_until, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
               {p(a.id), p(a.directory_url), p(a.registered_domain), p(domain::nameOf(a.kind)),
                p(a.at), p(a.project_id), p(a.account_id), p(a.retry_until), freeText(a.detail)});
      return {};
    });
  });
}

domain::Result<std::int64_t> PgCaActivityLog::count(const std::string& directoryUrl,
                                                    const std::string& registeredDomain,
                                                    domain::CaActivityKind kind,
                                                    domain::Timestamp since) const {
  return guarded([&]() -> domain::Result<std::int64_t> {
    return db_
        .exec(q("SELECT COUNT(*) FROM ca_activity WHERE directory_url = ? AND "
                "registered_domain = ? AND kind = ? AND at >= ?"),
              {p(directoryUrl), p(registeredDomain), p(domain::nameOf(kind)), p(since)})
        .integer(0, 0);
  });
}

domain::Result<std::optional<domain::CaActivity>> PgCaActivityLog::latest(
    const std::string& directoryUrl, const std::string& registeredDomain,
    domain::CaActivityKind kind) const {
  return guarded([&]() -> domain::Result<std::optional<domain::CaActivity>> {
    auto rows = db_.exec(
        q("SELECT id, at, project_id, account_id, retry_until, detail FROM ca_activity WHERE "
          "directory_url = ? AND registered_domain = ? AND kind = ? ORDER BY at DESC, id DESC "
          "LIMIT 1"),
        {p(directoryUrl), p(registeredDomain), p(domain::nameOf(kind))});
    if (rows.empty()) return std::optional<domain::CaActivity>();
    return std::optional<domain::CaActivity>(
        activityRow(rows, 0, directoryUrl, registeredDomain, kind));
  });
}

domain::Result<std::optional<domain::CaActivity>> PgCaActivityLog::activeHold(
    const std::string& directoryUrl, const std::string& registeredDomain,
    const domain::Id& accountId, domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<domain::CaActivity>> {
    const auto kind = domain::CaActivityKind::rate_limited;
    auto rows = db_.exec(
        q("SELECT id, at, project_id, account_id, retry_until, detail FROM ca_activity WHERE "
          "directory_url = ? AND registered_domain = ? AND kind = ? AND account_id = ? AND "
          "retry_until > ? ORDER BY retry_until DESC, id DESC LIMIT 1"),
        {p(directoryUrl), p(registeredDomain), p(domain::nameOf(kind)), p(accountId), p(now)});
    if (rows.empty()) return std::optional<domain::CaActivity>();
    return std::optional<domain::CaActivity>(
        activityRow(rows, 0, directoryUrl, registeredDomain, kind));
  });
}

}  // namespace certsteward::adapters::postgres
