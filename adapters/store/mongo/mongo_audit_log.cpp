// The audit chain in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_audit_log.hpp>

#include <certsteward/adapters/store/mongo/mongo_documents.hpp>

namespace certsteward::adapters::mongo {
namespace {

const bson_oid_t& headOid() {
  static const bson_oid_t oid = keyOid("audit-chain-head");
  return oid;
}

constexpr int kAppendRetries = 200;

}  // namespace

// The head document {seq, checksum, ts} is advanced by compare-and-set before the entry is
// written, so two appenders never chain onto the same predecessor. A process dying between
// the two writes leaves a gap that verification reports at the next entry — visible, not silent.
domain::Result<domain::AuditEntry> MongoAuditLog::append(const domain::AuditEntry& draft,
                                                         const domain::AuditChainSealer& sealer) {
  return guarded([&]() -> domain::Result<domain::AuditEntry> {
    auto c = db_.client();
    if (c.findOne("audit_log", Bson().oid("_id", idOid(draft.id)), Bson())) {
      return domain::makeError(domain::ErrorCode::conflict, "an audit entry with this id exists");
    }
    for (int attempt = 0; attempt < kAppendRetries; ++attempt) {
      domain::AuditEntry entry = draft;
      auto headJson = c.findOne("audit_head", Bson().oid("_id", headOid()), Bson());
      std::int64_t seq = 0;
      std::string previous;
      if (headJson) {
        Bson head = Bson::fromJson(*headJson);
        seq = intField(head, "seq").value_or(0);
        previous = textField(head, "checksum");
        entry.timestamp =
            domain::chainTimestamp(tsOf(intField(head, "ts").value_or(0)), entry.timestamp);
      }
      entry.sequence = seq + 1;
      sealer.seal(previous, entry);
      Bson newHead;
      newHead.oid("_id", headOid())
          .i64("seq", entry.sequence)
          .str("checksum", entry.checksum)
          .ts("ts", entry.timestamp);
      bool advanced = false;
      if (headJson) {
        advanced =
            c.replaceOne("audit_head", Bson().oid("_id", headOid()).i64("seq", seq), newHead) == 1;
      } else {
        try {
          c.insert("audit_head", newHead);
          advanced = true;
        } catch (const MongoError& e) {
          if (!isDuplicateKey(e)) throw;
        }
      }
      if (!advanced) continue;  // another appender took this position: chain after it
      Bson doc = Bson::fromJson(codec::encode(entry));
      doc.oid("_id", idOid(entry.id));
      c.insert("audit_log", doc);
      return entry;
    }
    return domain::makeError(domain::ErrorCode::unavailable, "the audit log is busy; try again");
  });
}

domain::Result<domain::AuditEntry> MongoAuditLog::get(const domain::Id& id) const {
  return guarded([&]() -> domain::Result<domain::AuditEntry> {
    auto c = db_.client();
    auto found = c.findOne("audit_log", Bson().oid("_id", idOid(id)), Bson());
    if (!found) return domain::makeError(domain::ErrorCode::not_found, "audit entry not found");
    return decodeOrThrow<domain::AuditEntry>(*found);
  });
}

domain::Result<domain::Page<domain::AuditEntry>> MongoAuditLog::list(
    const ports::AuditFilter& filter, const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::AuditEntry>> {
    auto c = db_.client();
    Bson f;
    if (filter.action) f.str("action", *filter.action);
    if (filter.resource_type) f.str("resource_type", *filter.resource_type);
    if (filter.actor_user_id) f.str("actor_user_id", *filter.actor_user_id);
    if (filter.project_id) f.str("project_id", *filter.project_id);
    if (filter.since || filter.until) {
      Bson range;
      if (filter.since) range.ts("$gte", *filter.since);
      if (filter.until) range.ts("$lt", *filter.until);
      f.doc("timestamp", range);
    }
    domain::Page<domain::AuditEntry> page;
    page.page = request.page;
    page.page_size = request.page_size;
    page.total = c.count("audit_log", f);
    Bson opts;
    opts.doc("sort", Bson().i64("sequence", -1))
        .i64("skip", request.offset())
        .i64("limit", request.page_size);
    for (const auto& json : c.find("audit_log", f, opts)) {
      page.items.push_back(decodeOrThrow<domain::AuditEntry>(json));
    }
    return page;
  });
}

domain::Result<ports::AuditChainPage> MongoAuditLog::chainPage(
    std::optional<domain::Timestamp> since, std::int64_t limit) const {
  return guarded([&]() -> domain::Result<ports::AuditChainPage> {
    auto c = db_.client();
    ports::AuditChainPage page;
    Bson filter;
    if (since) filter.doc("timestamp", Bson().ts("$gte", *since));
    Bson opts;
    opts.doc("sort", Bson().i64("sequence", 1)).i64("limit", limit + 1);
    for (const auto& json : c.find("audit_log", filter, opts)) {
      auto entry = decodeOrThrow<domain::AuditEntry>(json);
      if (static_cast<std::int64_t>(page.entries.size()) == limit) {
        page.next_since = entry.timestamp;
        break;
      }
      page.entries.push_back(std::move(entry));
    }
    if (!page.entries.empty() && page.entries.front().sequence > 1) {
      Bson prevOpts;
      prevOpts.doc("sort", Bson().i64("sequence", -1));
      auto prev = c.findOne(
          "audit_log", Bson().doc("sequence", Bson().i64("$lt", page.entries.front().sequence)),
          prevOpts);
      if (prev) page.predecessor_checksum = decodeOrThrow<domain::AuditEntry>(*prev).checksum;
    }
    return page;
  });
}

domain::Result<std::optional<domain::AuditEntry>> MongoAuditLog::head() const {
  return guarded([&]() -> domain::Result<std::optional<domain::AuditEntry>> {
    auto c = db_.client();
    auto found = c.findOne("audit_log", Bson(), Bson().doc("sort", Bson().i64("sequence", -1)));
    if (!found) return std::optional<domain::AuditEntry>{};
    return std::optional<domain::AuditEntry>{decodeOrThrow<domain::AuditEntry>(*found)};
  });
}

domain::Result<std::optional<domain::AuditEntry>> MongoAuditLog::atSequence(
    std::int64_t sequence) const {
  return guarded([&]() -> domain::Result<std::optional<domain::AuditEntry>> {
    auto c = db_.client();
    auto found = c.findOne("audit_log", Bson().i64("sequence", sequence), Bson());
    if (!found) return std::optional<domain::AuditEntry>{};
    return std::optional<domain::AuditEntry>{decodeOrThrow<domain::AuditEntry>(*found)};
  });
}

}  // namespace certsteward::adapters::mongo
