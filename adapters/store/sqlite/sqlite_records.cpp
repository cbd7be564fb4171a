// Cross-instance records in SQLite.
#include "adapters/store/sqlite/sqlite_records.hpp"

#include "adapters/store/codec/json_codec.hpp"

namespace certsteward::adapters::sqlite {

// ---- licence ----
domain::Result<std::optional<domain::License>> SqliteLicenseRepository::get() const {
  return guarded([&]() -> domain::Result<std::optional<domain::License>> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT doc FROM license WHERE id = 1");
    if (!s.step()) return std::optional<domain::License>{};
    auto decoded = codec::decode<domain::License>(s.text(0));
    if (!decoded) return decoded.error();
    return std::optional<domain::License>(std::move(*decoded));
  });
}

domain::Status SqliteLicenseRepository::put(const domain::License& license) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare(
         "INSERT INTO license (id, doc) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET doc = "
         "excluded.doc")
        .bind(codec::encode(license))
        .run();
    return {};
  });
}

// ---- refresh tokens ----
domain::Status SqliteRefreshTokenStore::issue(const domain::RefreshToken& t) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare(
         "INSERT INTO refresh_tokens (token_id, family_id, user_id, issued_at, expires_at, "
         "consumed, revoked) VALUES (?, ?, ?, ?, ?, ?, ?)")
        .bind(t.token_id)
        .bind(t.family_id)
        .bind(t.user_id)
        .bind(t.issued_at)
        .bind(t.expires_at)
        .bind(t.consumed)
        .bind(t.revoked)
        .run();
    // Expired tokens are of no use to anyone: drop them as new ones arrive.
    c->prepare("DELETE FROM refresh_tokens WHERE expires_at < ?").bind(t.issued_at).run();
    return {};
  });
}

domain::Result<domain::RefreshToken> SqliteRefreshTokenStore::consume(const std::string& tokenId,
                                                                      domain::Timestamp now) {
  return guarded([&]() -> domain::Result<domain::RefreshToken> {
    auto c = db_.writer();
    Transaction tx(*c, true);
    auto s = c->prepare(
        "SELECT token_id, family_id, user_id, issued_at, expires_at, consumed, revoked FROM "
        "refresh_tokens WHERE token_id = ?");
    s.bind(tokenId);
    if (!s.step()) {
      return domain::makeError(domain::ErrorCode::unauthenticated, "refresh token is not valid",
                               "TOKEN_INVALID");
    }
    domain::RefreshToken t{s.text(0),       s.text(1),         s.text(2),        *s.timestamp(3),
                           *s.timestamp(4), s.integer(5) != 0, s.integer(6) != 0};
    if (t.revoked || t.expires_at <= now) {
      return domain::makeError(domain::ErrorCode::unauthenticated, "refresh token is not valid",
                               "TOKEN_INVALID");
    }
    if (t.consumed) {
      c->prepare("UPDATE refresh_tokens SET revoked = 1 WHERE family_id = ?")
          .bind(t.family_id)
          .run();
      tx.commit();
      return domain::makeError(domain::ErrorCode::unauthenticated,
                               "refresh token was already used; all sessions of its login are "
                               "revoked",
                               "TOKEN_REUSE");
    }
    c->prepare("UPDATE refresh_tokens SET consumed = 1 WHERE token_id = ?").bind(tokenId).run();
    tx.commit();
    return t;
  });
}

domain::Status SqliteRefreshTokenStore::revokeFamily(const domain::Id& familyId) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare("UPDATE refresh_tokens SET revoked = 1 WHERE family_id = ?").bind(familyId).run();
    return {};
  });
}

domain::Status SqliteRefreshTokenStore::revokeUser(const domain::Id& userId) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare("UPDATE refresh_tokens SET revoked = 1 WHERE user_id = ?").bind(userId).run();
    return {};
  });
}

// ---- idempotency ----
domain::Result<std::optional<domain::IdempotencyRecord>> SqliteIdempotencyStore::find(
    const std::string& key, domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<domain::IdempotencyRecord>> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT doc FROM idempotency WHERE key = ? AND expires_at > ?");
    s.bind(key).bind(now);
    if (!s.step()) return std::optional<domain::IdempotencyRecord>{};
    auto decoded = codec::decode<domain::IdempotencyRecord>(s.text(0));
    if (!decoded) return decoded.error();
    return std::optional<domain::IdempotencyRecord>(std::move(*decoded));
  });
}

domain::Status SqliteIdempotencyStore::save(const domain::IdempotencyRecord& record,
                                            domain::Timestamp now) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    Transaction tx(*c, true);
    c->prepare("DELETE FROM idempotency WHERE expires_at <= ?").bind(now).run();
    auto s = c->prepare(
        "INSERT INTO idempotency (key, expires_at, doc) VALUES (?, ?, ?) ON CONFLICT (key) DO "
        "NOTHING");
    s.bind(record.key).bind(record.expires_at).bind(codec::encode(record));
    if (s.run() == 0) {
      return domain::makeError(domain::ErrorCode::conflict,
                               "a request with this Idempotency-Key is already recorded");
    }
    tx.commit();
    return {};
  });
}

// ---- rate limits ----
domain::Result<std::int64_t> SqliteRateLimitCounter::hit(const std::string& bucket,
                                                         domain::Duration window,
                                                         domain::Timestamp now) {
  if (window <= domain::Duration::zero()) {
    return domain::makeError(domain::ErrorCode::invalid_argument, "window must be positive");
  }
  return guarded([&]() -> domain::Result<std::int64_t> {
    const auto since = now.time_since_epoch();
    const domain::Timestamp start{since - since % window};
    auto c = db_.writer();
    Transaction tx(*c, true);
    c->prepare("DELETE FROM rate_limits WHERE window_end <= ?").bind(now).run();
    auto s = c->prepare(
        "INSERT INTO rate_limits (bucket, window_start, window_end, count) VALUES (?, ?, ?, 1) "
        "ON CONFLICT (bucket, window_start) DO UPDATE SET count = count + 1 RETURNING count");
    s.bind(bucket).bind(start).bind(start + window);
    s.step();
    const std::int64_t count = s.integer(0);
    s.run();
    tx.commit();
    return count;
  });
}

// ---- CA activity ----
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

// ---- leader lock ----
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

// ---- settings ----
domain::Result<std::optional<domain::Setting>> SqliteSettingsRepository::get(
    const std::string& key) const {
  return guarded([&]() -> domain::Result<std::optional<domain::Setting>> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT key, value, updated_at FROM settings WHERE key = ?");
    s.bind(key);
    if (!s.step()) return std::optional<domain::Setting>{};
    return std::optional<domain::Setting>(domain::Setting{s.text(0), s.text(1), *s.timestamp(2)});
  });
}

domain::Status SqliteSettingsRepository::put(const domain::Setting& setting) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare(
         "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO "
         "UPDATE SET value = excluded.value, updated_at = excluded.updated_at")
        .bind(setting.key)
        .bind(setting.value)
        .bind(setting.updated_at)
        .run();
    return {};
  });
}

}  // namespace certsteward::adapters::sqlite
