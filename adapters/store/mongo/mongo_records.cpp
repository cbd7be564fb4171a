// The audit chain and the cross-instance records in MongoDB.
#include "adapters/store/mongo/mongo_repositories.hpp"

namespace certsteward::adapters::mongo {
namespace {

std::optional<std::int64_t> intField(const Bson& doc, const char* key) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, doc.get(), key) && !BSON_ITER_HOLDS_NULL(&it)) {
    return bson_iter_as_int64(&it);
  }
  return std::nullopt;
}

std::string textField(const Bson& doc, const char* key) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, doc.get(), key) && BSON_ITER_HOLDS_UTF8(&it)) {
    return bson_iter_utf8(&it, nullptr);
  }
  return {};
}

bool boolField(const Bson& doc, const char* key) {
  bson_iter_t it;
  return bson_iter_init_find(&it, doc.get(), key) && BSON_ITER_HOLDS_BOOL(&it) &&
         bson_iter_bool(&it);
}

domain::Timestamp tsOf(std::int64_t millis) {
  return domain::Timestamp{domain::Duration{millis}};
}

const bson_oid_t& headOid() {
  static const bson_oid_t oid = keyOid("audit-chain-head");
  return oid;
}

constexpr int kAppendRetries = 200;

}  // namespace

// ---- audit chain ----
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

void MongoAuditLog::tamperForTest(const domain::AuditEntry& entry) {
  auto c = db_.client();
  Bson doc = Bson::fromJson(codec::encode(entry));
  doc.oid("_id", idOid(entry.id));
  c.replaceOne("audit_log", Bson().oid("_id", idOid(entry.id)), doc);
}

// ---- licence ----
domain::Result<std::optional<domain::License>> MongoLicenseRepository::get() const {
  return guarded([&]() -> domain::Result<std::optional<domain::License>> {
    auto c = db_.client();
    auto found = c.findOne("license", Bson().oid("_id", keyOid("license")), Bson());
    if (!found) return std::optional<domain::License>{};
    return std::optional<domain::License>(decodeOrThrow<domain::License>(*found));
  });
}

domain::Status MongoLicenseRepository::put(const domain::License& license) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    Bson doc = Bson::fromJson(codec::encode(license));
    doc.oid("_id", keyOid("license"));
    if (c.replaceOne("license", Bson().oid("_id", keyOid("license")), doc) == 0) {
      try {
        c.insert("license", doc);
      } catch (const MongoError& e) {
        if (!isDuplicateKey(e)) throw;
        c.replaceOne("license", Bson().oid("_id", keyOid("license")), doc);
      }
    }
    return {};
  });
}

// ---- refresh tokens ----
domain::Status MongoRefreshTokenStore::issue(const domain::RefreshToken& t) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.insert("refresh_tokens", Bson()
                                   .oid("_id", keyOid("refresh|" + t.token_id))
                                   .str("token_id", t.token_id)
                                   .str("family_id", t.family_id)
                                   .str("user_id", t.user_id)
                                   .ts("issued_at", t.issued_at)
                                   .ts("expires_at", t.expires_at)
                                   .date("expire_at", t.expires_at)  // TTL index
                                   .boolean("consumed", t.consumed)
                                   .boolean("revoked", t.revoked));
    return {};
  });
}

domain::Result<domain::RefreshToken> MongoRefreshTokenStore::consume(const std::string& tokenId,
                                                                     domain::Timestamp now) {
  return guarded([&]() -> domain::Result<domain::RefreshToken> {
    auto c = db_.client();
    const bson_oid_t oid = keyOid("refresh|" + tokenId);
    const auto invalid = [] {
      return domain::makeError(domain::ErrorCode::unauthenticated, "refresh token is not valid",
                               "TOKEN_INVALID");
    };
    Bson filter;
    filter.oid("_id", oid)
        .boolean("consumed", false)
        .boolean("revoked", false)
        .doc("expires_at", Bson().ts("$gt", now));
    auto before =
        c.findAndModify("refresh_tokens", filter,
                        Bson().doc("$set", Bson().boolean("consumed", true)), false, false);
    const auto read = [&](const std::string& json) {
      Bson doc = Bson::fromJson(json);
      return domain::RefreshToken{textField(doc, "token_id"),
                                  textField(doc, "family_id"),
                                  textField(doc, "user_id"),
                                  tsOf(intField(doc, "issued_at").value_or(0)),
                                  tsOf(intField(doc, "expires_at").value_or(0)),
                                  boolField(doc, "consumed"),
                                  boolField(doc, "revoked")};
    };
    if (before) return read(*before);
    auto found = c.findOne("refresh_tokens", Bson().oid("_id", oid), Bson());
    if (!found) return invalid();
    const auto token = read(*found);
    if (token.revoked || token.expires_at <= now || !token.consumed) return invalid();
    c.updateMany("refresh_tokens", Bson().str("family_id", token.family_id),
                 Bson().doc("$set", Bson().boolean("revoked", true)));
    return domain::makeError(domain::ErrorCode::unauthenticated,
                             "refresh token was already used; all sessions of its login are "
                             "revoked",
                             "TOKEN_REUSE");
  });
}

domain::Status MongoRefreshTokenStore::revokeFamily(const domain::Id& familyId) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.updateMany("refresh_tokens", Bson().str("family_id", familyId),
                 Bson().doc("$set", Bson().boolean("revoked", true)));
    return {};
  });
}

domain::Status MongoRefreshTokenStore::revokeUser(const domain::Id& userId) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.updateMany("refresh_tokens", Bson().str("user_id", userId),
                 Bson().doc("$set", Bson().boolean("revoked", true)));
    return {};
  });
}

// ---- idempotency ----
domain::Result<std::optional<domain::IdempotencyRecord>> MongoIdempotencyStore::find(
    const std::string& key, domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<domain::IdempotencyRecord>> {
    auto c = db_.client();
    Bson filter;
    filter.oid("_id", keyOid("idem|" + key)).doc("expires_at", Bson().ts("$gt", now));
    auto found = c.findOne("idempotency", filter, Bson());
    if (!found) return std::optional<domain::IdempotencyRecord>{};
    return std::optional<domain::IdempotencyRecord>(
        decodeOrThrow<domain::IdempotencyRecord>(*found));
  });
}

domain::Status MongoIdempotencyStore::save(const domain::IdempotencyRecord& record,
                                           domain::Timestamp now) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    const bson_oid_t oid = keyOid("idem|" + record.key);
    // An expired record no longer holds its key (the TTL index removes it eventually).
    c.deleteMany("idempotency", Bson().oid("_id", oid).doc("expires_at", Bson().ts("$lte", now)));
    Bson doc = Bson::fromJson(codec::encode(record));
    doc.oid("_id", oid).date("expire_at", record.expires_at);
    try {
      c.insert("idempotency", doc);
    } catch (const MongoError& e) {
      if (!isDuplicateKey(e)) throw;
      return domain::makeError(domain::ErrorCode::conflict,
                               "a request with this Idempotency-Key is already recorded");
    }
    return {};
  });
}

// ---- rate limits ----
domain::Result<std::int64_t> MongoRateLimitCounter::hit(const std::string& bucket,
                                                        domain::Duration window,
                                                        domain::Timestamp now) {
  if (window <= domain::Duration::zero()) {
    return domain::makeError(domain::ErrorCode::invalid_argument, "window must be positive");
  }
  return guarded([&]() -> domain::Result<std::int64_t> {
    const auto since = now.time_since_epoch();
    const domain::Timestamp start{since - since % window};
    auto c = db_.client();
    Bson update;
    update.doc("$inc", Bson().i64("count", 1))
        .doc("$set", Bson()
                         .str("bucket", bucket)
                         .ts("window_start", start)
                         .date("expire_at", start + window));
    auto after =
        c.findAndModify("rate_limits",
                        Bson().oid("_id", keyOid("rate|" + bucket + "|" +
                                                 std::to_string(start.time_since_epoch().count()))),
                        update, true, true);
    if (!after) return domain::makeError(domain::ErrorCode::internal, "rate limit counter lost");
    return intField(Bson::fromJson(*after), "count").value_or(0);
  });
}

// ---- CA activity ----
namespace {
Bson caActivityFilter(const std::string& directoryUrl, const std::string& registeredDomain,
                      domain::CaActivityKind kind) {
  Bson filter;
  filter.str("directory_url", directoryUrl)
      .str("registered_domain", registeredDomain)
      .str("kind", domain::nameOf(kind));
  return filter;
}

domain::CaActivity activityOf(const Bson& doc, const std::string& directoryUrl,
                              const std::string& registeredDomain, domain::CaActivityKind kind) {
  domain::CaActivity a;
  bson_iter_t it;
  if (bson_iter_init_find(&it, doc.get(), "_id") && BSON_ITER_HOLDS_OID(&it)) {
    char hex[25];
    bson_oid_to_string(bson_iter_oid(&it), hex);
    a.id = hex;
  }
  a.directory_url = directoryUrl;
  a.registered_domain = registeredDomain;
  a.kind = kind;
  a.at = tsOf(intField(doc, "at").value_or(0));
  a.project_id = textField(doc, "project_id");
  a.account_id = textField(doc, "account_id");
  if (auto until = intField(doc, "retry_until")) a.retry_until = tsOf(*until);
  a.detail = textField(doc, "detail");
  return a;
}
}  // namespace

domain::Status MongoCaActivityLog::record(const domain::CaActivity& a) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    Bson doc;
    doc.oid("_id", idOid(a.id))
        .str("directory_url", a.directory_url)
        .str("registered_domain", a.registered_domain)
        .str("kind", domain::nameOf(a.kind))
        .ts("at", a.at)
        .str("project_id", a.project_id)
        .str("account_id", a.account_id)
        .str("detail", a.detail)
        .date("expire_at", a.at + domain::kCaActivityRetention);  // the TTL index drops it
    if (a.retry_until) {
      doc.ts("retry_until", *a.retry_until);
    } else {
      doc.null("retry_until");
    }
    c.insert("ca_activity", doc);
    return {};
  });
}

domain::Result<std::int64_t> MongoCaActivityLog::count(const std::string& directoryUrl,
                                                       const std::string& registeredDomain,
                                                       domain::CaActivityKind kind,
                                                       domain::Timestamp since) const {
  return guarded([&]() -> domain::Result<std::int64_t> {
    auto c = db_.client();
    Bson filter = caActivityFilter(directoryUrl, registeredDomain, kind);
    filter.doc("at", Bson().ts("$gte", since));
    return c.count("ca_activity", filter);
  });
}

domain::Result<std::optional<domain::CaActivity>> MongoCaActivityLog::latest(
    const std::string& directoryUrl, const std::string& registeredDomain,
    domain::CaActivityKind kind) const {
  return guarded([&]() -> domain::Result<std::optional<domain::CaActivity>> {
    auto c = db_.client();
    Bson opts;
    opts.doc("sort", Bson().i64("at", -1).i64("_id", -1));
    auto found =
        c.findOne("ca_activity", caActivityFilter(directoryUrl, registeredDomain, kind), opts);
    if (!found) return std::optional<domain::CaActivity>();
    return std::optional<domain::CaActivity>(
        activityOf(Bson::fromJson(*found), directoryUrl, registeredDomain, kind));
  });
}

domain::Result<std::optional<domain::CaActivity>> MongoCaActivityLog::activeHold(
    const std::string& directoryUrl, const std::string& registeredDomain,
    const domain::Id& accountId, domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<domain::CaActivity>> {
    auto c = db_.client();
    const auto kind = domain::CaActivityKind::rate_limited;
    Bson filter = caActivityFilter(directoryUrl, registeredDomain, kind);
    filter.str("account_id", accountId).doc("retry_until", Bson().ts("$gt", now));
    Bson opts;
    opts.doc("sort", Bson().i64("retry_until", -1).i64("_id", -1));
    auto found = c.findOne("ca_activity", filter, opts);
    if (!found) return std::optional<domain::CaActivity>();
    return std::optional<domain::CaActivity>(
        activityOf(Bson::fromJson(*found), directoryUrl, registeredDomain, kind));
  });
}

// ---- leader lock ----
domain::Result<bool> MongoLeaderLock::tryAcquire(const std::string& name, const std::string& holder,
                                                 domain::Timestamp now, domain::Duration ttl) {
  return guarded([&]() -> domain::Result<bool> {
    auto c = db_.client();
    const bson_oid_t oid = keyOid("leader|" + name);
    try {  // make sure the lease document exists (a free lease)
      c.insert("leader_locks",
               Bson().oid("_id", oid).str("name", name).str("holder", "").i64("expires_at", 0));
    } catch (const MongoError& e) {
      if (!isDuplicateKey(e)) throw;
    }
    // Take it if it is ours or expired, in one atomic step.
    bson_t orArray;
    Bson filter;
    filter.oid("_id", oid);
    bson_append_array_begin(filter.get(), "$or", -1, &orArray);
    Bson mine;
    mine.str("holder", holder);
    Bson expired;
    expired.doc("expires_at", Bson().ts("$lte", now));
    bson_append_document(&orArray, "0", -1, mine.get());
    bson_append_document(&orArray, "1", -1, expired.get());
    bson_append_array_end(filter.get(), &orArray);
    auto after = c.findAndModify(
        "leader_locks", filter,
        Bson().doc("$set", Bson().str("holder", holder).ts("expires_at", now + ttl)), false, true);
    return after.has_value();
  });
}

domain::Status MongoLeaderLock::release(const std::string& name, const std::string& holder) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.updateOne("leader_locks", Bson().oid("_id", keyOid("leader|" + name)).str("holder", holder),
                Bson().doc("$set", Bson().str("holder", "").i64("expires_at", 0)));
    return {};
  });
}

domain::Result<std::optional<std::string>> MongoLeaderLock::holder(const std::string& name,
                                                                   domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<std::string>> {
    auto c = db_.client();
    Bson filter;
    filter.oid("_id", keyOid("leader|" + name)).doc("expires_at", Bson().ts("$gt", now));
    auto found = c.findOne("leader_locks", filter, Bson());
    if (!found) return std::optional<std::string>{};
    const std::string h = textField(Bson::fromJson(*found), "holder");
    if (h.empty()) return std::optional<std::string>{};
    return std::optional<std::string>(h);
  });
}

// ---- settings ----
domain::Result<std::optional<domain::Setting>> MongoSettingsRepository::get(
    const std::string& key) const {
  return guarded([&]() -> domain::Result<std::optional<domain::Setting>> {
    auto c = db_.client();
    auto found = c.findOne("settings", Bson().oid("_id", keyOid("setting|" + key)), Bson());
    if (!found) return std::optional<domain::Setting>{};
    Bson doc = Bson::fromJson(*found);
    return std::optional<domain::Setting>(
        domain::Setting{textField(doc, "key"), textField(doc, "value"),
                        tsOf(intField(doc, "updated_at").value_or(0))});
  });
}

domain::Status MongoSettingsRepository::put(const domain::Setting& s) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.updateOne(
        "settings", Bson().oid("_id", keyOid("setting|" + s.key)),
        Bson().doc("$set",
                   Bson().str("key", s.key).str("value", s.value).ts("updated_at", s.updated_at)),
        true);
    return {};
  });
}

}  // namespace certsteward::adapters::mongo
