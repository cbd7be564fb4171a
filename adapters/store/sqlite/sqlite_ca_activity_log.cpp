// CA activity in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_ca_activity_log.hpp>

namespace certsteward::adapters::sqlite {
namespace {
// A row of SELECT id, at, project_id, account_id, retry_until, detail.
domain::CaActivity activityRow(const Statement& s, const std::string& directoryUrl,
                               const std::string& registeredDomain, domain::CaActivityKind kind) {
  domain::CaActivity a;
  a.id = s.text(0);
  a.directory_url = directoryUrl;
  a.registered_domain = registeredDomain;
  a.kind = kind;
  a.at = s.timestamp(1).value_or(domain::Timestamp{});
  a.project_id = s.text(2);
  a.account_id = s.text(3);
  a.retry_until = s.timestamp(4);
  a.detail = s.text(5);
  return a;
}
}  // namespace

domain::Status SqliteCaActivityLog::record(const domain::CaActivity& a) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    Transaction tx(*c, true);
    c->prepare("DELETE FROM ca_activity WHERE at < ?")
        .bind(a.at - domain::kCaActivityRetention)
        .run();
    c->prepare(
         "INSERT INTO ca_activity (id, directory_url, registered_domain, kind, at, project_id, "
         "account_id, retry_until, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(a.id)
        .bind(a.directory_url)
        .bind(a.registered_domain)
        .bind(domain::nameOf(a.kind))
        .bind(a.at)
        .bind(a.project_id)
        .bind(a.account_id)
        .bind(a.retry_until)
        .bind(a.detail)
        .run();
    tx.commit();
    return {};
  });
}

domain::Result<std::int64_t> SqliteCaActivityLog::count(const std::string& directoryUrl,
                                                        const std::string& registeredDomain,
                                                        domain::CaActivityKind kind,
                                                        domain::Timestamp since) const {
  return guarded([&]() -> domain::Result<std::int64_t> {
    auto c = db_.reader();
    auto s = c->prepare(
        "SELECT COUNT(*) FROM ca_activity WHERE directory_url = ? AND registered_domain = ? AND "
        "kind = ? AND at >= ?");
    s.bind(directoryUrl).bind(registeredDomain).bind(domain::nameOf(kind)).bind(since);
    s.step();
    return s.integer(0);
  });
}

domain::Result<std::optional<domain::CaActivity>> SqliteCaActivityLog::latest(
    const std::string& directoryUrl, const std::string& registeredDomain,
    domain::CaActivityKind kind) const {
  return guarded([&]() -> domain::Result<std::optional<domain::CaActivity>> {
    auto c = db_.reader();
    auto s = c->prepare(
        "SELECT id, at, project_id, account_id, retry_until, detail FROM ca_activity WHERE "
        "directory_url = ? AND registered_domain = ? AND kind = ? ORDER BY at DESC, id DESC "
        "LIMIT 1");
    s.bind(directoryUrl).bind(registeredDomain).bind(domain::nameOf(kind));
    if (!s.step()) return std::optional<domain::CaActivity>();
    return std::optional<domain::CaActivity>(activityRow(s, directoryUrl, registeredDomain, kind));
  });
}

domain::Result<std::optional<domain::CaActivity>> SqliteCaActivityLog::activeHold(
    const std::string& directoryUrl, const std::string& registeredDomain,
    const domain::Id& accountId, domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<domain::CaActivity>> {
    auto c = db_.reader();
    auto s = c->prepare(
        "SELECT id, at, project_id, account_id, retry_until, detail FROM ca_activity WHERE "
        "directory_url = ? AND registered_domain = ? AND kind = ? AND account_id = ? AND "
        "retry_until > ? ORDER BY retry_until DESC, id DESC LIMIT 1");
    const auto kind = domain::CaActivityKind::rate_limited;
    s.bind(directoryUrl)
        .bind(registeredDomain)
        .bind(domain::nameOf(kind))
        .bind(accountId)
        .bind(now);
    if (!s.step()) return std::optional<domain::CaActivity>();
    return std::optional<domain::CaActivity>(activityRow(s, directoryUrl, registeredDomain, kind));
  });
}

}  // namespace certsteward::adapters::sqlite
