// The audit chain in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_audit_log.hpp>

#include <limits>

#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {
namespace {

using domain::AuditEntry;

// Held by every append until its transaction commits (the caller's, when it runs in one): the
// next append reads the head only after the one before it is committed.
constexpr const char* kChainGuard = "certsteward:audit";

}  // namespace

domain::Result<AuditEntry> PgAuditLog::append(const AuditEntry& draft,
                                              const domain::AuditChainSealer& sealer) {
  AuditEntry entry = draft;
  auto done = db_.transact({kChainGuard}, [&]() -> domain::Status {
    return guarded([&]() -> domain::Status {
      entry = draft;  // afresh on a retry
      std::string previous;
      entry.sequence = 1;
      const auto last =
          db_.exec("SELECT seq, ts, checksum FROM audit_log ORDER BY seq DESC LIMIT 1");
      if (!last.empty()) {
        entry.sequence = last.integer(0, 0) + 1;
        entry.timestamp = domain::chainTimestamp(*timestampAt(last, 0, 1), entry.timestamp);
        previous = last.text(0, 2);
      }
      sealer.seal(previous, entry);
      db_.exec(q("INSERT INTO audit_log (seq, id, ts, action, resource_type, actor_user_id, "
                 "project_id, checksum, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"),
               {p(entry.sequence), p(entry.id), p(entry.timestamp), p(entry.action),
                p(entry.resource_type), p(entry.actor_user_id), p(entry.project_id),
                p(entry.checksum), p(codec::encode(entry))});
      return {};
    });
  });
  if (!done) return done.error();
  return entry;
}

domain::Result<AuditEntry> PgAuditLog::get(const domain::Id& id) const {
  return guarded([&]() -> domain::Result<AuditEntry> {
    const auto rows = db_.exec(q("SELECT doc FROM audit_log WHERE id = ?"), {p(id)});
    if (rows.empty()) {
      return domain::makeError(domain::ErrorCode::not_found, "audit entry not found");
    }
    return document<AuditEntry>(rows, 0, 0);
  });
}

domain::Result<domain::Page<AuditEntry>> PgAuditLog::list(
    const ports::AuditFilter& filter, const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<AuditEntry>> {
    std::string where = "true";
    std::vector<Param> params;
    const auto add = [&](const char* clause, Param value) {
      where += clause;
      params.push_back(std::move(value));
    };
    if (filter.action) add(" AND action = ?", p(*filter.action));
    if (filter.resource_type) add(" AND resource_type = ?", p(*filter.resource_type));
    if (filter.actor_user_id) add(" AND actor_user_id = ?", p(*filter.actor_user_id));
    if (filter.project_id) add(" AND project_id = ?", p(*filter.project_id));
    if (filter.since) add(" AND ts >= ?", p(*filter.since));
    if (filter.until) add(" AND ts < ?", p(*filter.until));
    return pageOf<AuditEntry>(
        db_, "SELECT COUNT(*) FROM audit_log WHERE " + where,
        "SELECT doc FROM audit_log WHERE " + where + " ORDER BY seq DESC LIMIT ? OFFSET ?", params,
        request);
  });
}

domain::Result<ports::AuditChainPage> PgAuditLog::chainPage(std::optional<domain::Timestamp> since,
                                                            std::int64_t limit) const {
  return guarded([&]() -> domain::Result<ports::AuditChainPage> {
    ports::AuditChainPage page;
    auto read = db_.snapshot([&]() -> domain::Status {
      page = {};  // afresh if the snapshot is run again
      // Timestamps strictly increase along the chain, so ts order is chain order.
      const auto rows = db_.exec(
          q("SELECT doc, seq FROM audit_log WHERE ts >= ? ORDER BY ts LIMIT ?"),
          {p(since ? since->time_since_epoch().count() : std::numeric_limits<std::int64_t>::min()),
           p(limit + 1)});
      std::int64_t firstSeq = 0;
      for (int i = 0; i < rows.size(); ++i) {
        if (static_cast<std::int64_t>(page.entries.size()) == limit) {
          page.next_since = document<AuditEntry>(rows, i, 0).timestamp;
          break;
        }
        if (page.entries.empty()) firstSeq = rows.integer(i, 1);
        page.entries.push_back(document<AuditEntry>(rows, i, 0));
      }
      if (firstSeq > 1) {
        const auto prev =
            db_.exec(q("SELECT checksum FROM audit_log WHERE seq < ? ORDER BY seq DESC LIMIT 1"),
                     {p(firstSeq)});
        if (!prev.empty()) page.predecessor_checksum = prev.text(0, 0);
      }
      return {};
    });
    if (!read) return read.error();
    return page;
  });
}

domain::Result<std::optional<AuditEntry>> PgAuditLog::head() const {
  return guarded([&]() -> domain::Result<std::optional<AuditEntry>> {
    const auto rows = db_.exec("SELECT doc FROM audit_log ORDER BY seq DESC LIMIT 1");
    if (rows.empty()) return std::optional<AuditEntry>{};
    return std::optional<AuditEntry>{document<AuditEntry>(rows, 0, 0)};
  });
}

domain::Result<std::optional<AuditEntry>> PgAuditLog::atSequence(std::int64_t sequence) const {
  return guarded([&]() -> domain::Result<std::optional<AuditEntry>> {
    const auto rows = db_.exec(q("SELECT doc FROM audit_log WHERE seq = ?"), {p(sequence)});
    if (rows.empty()) return std::optional<AuditEntry>{};
    return std::optional<AuditEntry>{document<AuditEntry>(rows, 0, 0)};
  });
}

}  // namespace certsteward::adapters::postgres
