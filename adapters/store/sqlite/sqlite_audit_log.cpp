// The audit chain in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_audit_log.hpp>

#include <certsteward/adapters/store/codec/json_codec.hpp>

namespace certsteward::adapters::sqlite {
namespace {

using domain::AuditEntry;

AuditEntry read(const Statement& s, int column) {
  auto decoded = codec::decode<AuditEntry>(s.text(column));
  if (!decoded) throw SqliteError(0, "stored audit entry is corrupt");
  return std::move(*decoded);
}

}  // namespace

domain::Result<AuditEntry> SqliteAuditLog::append(const AuditEntry& draft,
                                                  const domain::AuditChainSealer& sealer) {
  return guarded([&]() -> domain::Result<AuditEntry> {
    auto c = db_.writer();
    Transaction tx(*c, true);
    AuditEntry entry = draft;
    std::string previous;
    entry.sequence = 1;
    {
      auto last = c->prepare("SELECT seq, ts, checksum FROM audit_log ORDER BY seq DESC LIMIT 1");
      if (last.step()) {
        entry.sequence = last.integer(0) + 1;
        entry.timestamp = domain::chainTimestamp(*last.timestamp(1), entry.timestamp);
        previous = last.text(2);
      }
    }
    sealer.seal(previous, entry);
    c->prepare(
         "INSERT INTO audit_log (seq, id, ts, action, resource_type, actor_user_id, project_id, "
         "checksum, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(entry.sequence)
        .bind(entry.id)
        .bind(entry.timestamp)
        .bind(entry.action)
        .bind(entry.resource_type)
        .bind(entry.actor_user_id)
        .bind(entry.project_id)
        .bind(entry.checksum)
        .bind(codec::encode(entry))
        .run();
    tx.commit();
    return entry;
  });
}

domain::Result<AuditEntry> SqliteAuditLog::get(const domain::Id& id) const {
  return guarded([&]() -> domain::Result<AuditEntry> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT doc FROM audit_log WHERE id = ?");
    s.bind(id);
    if (!s.step()) return domain::makeError(domain::ErrorCode::not_found, "audit entry not found");
    return read(s, 0);
  });
}

domain::Result<domain::Page<AuditEntry>> SqliteAuditLog::list(
    const ports::AuditFilter& filter, const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<AuditEntry>> {
    std::string where = "1";
    if (filter.action) where += " AND action = ?";
    if (filter.resource_type) where += " AND resource_type = ?";
    if (filter.actor_user_id) where += " AND actor_user_id = ?";
    if (filter.project_id) where += " AND project_id = ?";
    if (filter.since) where += " AND ts >= ?";
    if (filter.until) where += " AND ts < ?";
    const auto bind = [&](Statement& s) {
      if (filter.action) s.bind(*filter.action);
      if (filter.resource_type) s.bind(*filter.resource_type);
      if (filter.actor_user_id) s.bind(*filter.actor_user_id);
      if (filter.project_id) s.bind(*filter.project_id);
      if (filter.since) s.bind(filter.since->time_since_epoch().count());
      if (filter.until) s.bind(filter.until->time_since_epoch().count());
    };
    auto c = db_.reader();
    Transaction snapshot(*c, false);
    domain::Page<AuditEntry> page;
    page.page = request.page;
    page.page_size = request.page_size;
    auto count = c->prepare("SELECT COUNT(*) FROM audit_log WHERE " + where);
    bind(count);
    count.step();
    page.total = count.integer(0);
    auto s = c->prepare("SELECT doc FROM audit_log WHERE " + where +
                        " ORDER BY seq DESC LIMIT ? OFFSET ?");
    bind(s);
    s.bind(request.page_size).bind(request.offset());
    while (s.step())
      page.items.push_back(read(s, 0));
    snapshot.commit();
    return page;
  });
}

domain::Result<ports::AuditChainPage> SqliteAuditLog::chainPage(
    std::optional<domain::Timestamp> since, std::int64_t limit) const {
  return guarded([&]() -> domain::Result<ports::AuditChainPage> {
    auto c = db_.reader();
    Transaction snapshot(*c, false);
    ports::AuditChainPage page;
    // Timestamps strictly increase along the chain, so ts order is chain order.
    auto s = c->prepare("SELECT doc, seq FROM audit_log WHERE ts >= ? ORDER BY ts LIMIT ?");
    s.bind(since ? since->time_since_epoch().count() : std::numeric_limits<std::int64_t>::min())
        .bind(limit + 1);
    std::int64_t firstSeq = 0;
    while (s.step()) {
      if (static_cast<std::int64_t>(page.entries.size()) == limit) {
        page.next_since = read(s, 0).timestamp;
        break;
      }
      if (page.entries.empty()) firstSeq = s.integer(1);
      page.entries.push_back(read(s, 0));
    }
    if (firstSeq > 1) {
      auto prev =
          c->prepare("SELECT checksum FROM audit_log WHERE seq < ? ORDER BY seq DESC LIMIT 1");
      prev.bind(firstSeq);
      if (prev.step()) page.predecessor_checksum = prev.text(0);
    }
    snapshot.commit();
    return page;
  });
}

domain::Result<std::optional<AuditEntry>> SqliteAuditLog::head() const {
  return guarded([&]() -> domain::Result<std::optional<AuditEntry>> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT doc FROM audit_log ORDER BY seq DESC LIMIT 1");
    if (!s.step()) return std::optional<AuditEntry>{};
    return std::optional<AuditEntry>{read(s, 0)};
  });
}

domain::Result<std::optional<AuditEntry>> SqliteAuditLog::atSequence(std::int64_t sequence) const {
  return guarded([&]() -> domain::Result<std::optional<AuditEntry>> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT doc FROM audit_log WHERE seq = ?");
    s.bind(sequence);
    if (!s.step()) return std::optional<AuditEntry>{};
    return std::optional<AuditEntry>{read(s, 0)};
  });
}

}  // namespace certsteward::adapters::sqlite
