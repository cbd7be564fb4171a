// The SQLite records that hold across instances: licence, refresh tokens, idempotency records,
// rate-limit counters, the leader lock, settings and CA activity. Each read-modify-write runs in
// BEGIN IMMEDIATE, so it is atomic across threads and processes. Thread-safe.
#pragma once

#include "adapters/store/sqlite/sqlite_database.hpp"
#include "ports/ca_activity_log.hpp"
#include "ports/idempotency_store.hpp"
#include "ports/leader_lock.hpp"
#include "ports/license_repository.hpp"
#include "ports/rate_limit_counter.hpp"
#include "ports/refresh_token_store.hpp"
#include "ports/settings_repository.hpp"

namespace certsteward::adapters::sqlite {

class SqliteLicenseRepository : public ports::LicenseRepository {
 public:
  explicit SqliteLicenseRepository(Database& db) : db_(db) {}
  domain::Result<std::optional<domain::License>> get() const override;
  domain::Status put(const domain::License& license) override;

 private:
  Database& db_;
};

class SqliteRefreshTokenStore : public ports::RefreshTokenStore {
 public:
  explicit SqliteRefreshTokenStore(Database& db) : db_(db) {}
  domain::Status issue(const domain::RefreshToken& token) override;
  domain::Result<domain::RefreshToken> consume(const std::string& tokenId,
                                               domain::Timestamp now) override;
  domain::Status revokeFamily(const domain::Id& familyId) override;
  domain::Status revokeUser(const domain::Id& userId) override;

 private:
  Database& db_;
};

class SqliteIdempotencyStore : public ports::IdempotencyStore {
 public:
  explicit SqliteIdempotencyStore(Database& db) : db_(db) {}
  domain::Result<std::optional<domain::IdempotencyRecord>> find(
      const std::string& key, domain::Timestamp now) const override;
  domain::Status save(const domain::IdempotencyRecord& record, domain::Timestamp now) override;

 private:
  Database& db_;
};

class SqliteRateLimitCounter : public ports::RateLimitCounter {
 public:
  explicit SqliteRateLimitCounter(Database& db) : db_(db) {}
  domain::Result<std::int64_t> hit(const std::string& bucket, domain::Duration window,
                                   domain::Timestamp now) override;

 private:
  Database& db_;
};

class SqliteCaActivityLog : public ports::CaActivityLog {
 public:
  explicit SqliteCaActivityLog(Database& db) : db_(db) {}
  domain::Status record(const domain::CaActivity& activity) override;
  domain::Result<std::int64_t> count(const std::string& directoryUrl,
                                     const std::string& registeredDomain,
                                     domain::CaActivityKind kind,
                                     domain::Timestamp since) const override;
  domain::Result<std::optional<domain::CaActivity>> latest(
      const std::string& directoryUrl, const std::string& registeredDomain,
      domain::CaActivityKind kind) const override;
  domain::Result<std::optional<domain::CaActivity>> activeHold(
      const std::string& directoryUrl, const std::string& registeredDomain,
      const domain::Id& accountId, domain::Timestamp now) const override;

 private:
  Database& db_;
};

class SqliteLeaderLock : public ports::LeaderLock {
 public:
  explicit SqliteLeaderLock(Database& db) : db_(db) {}
  domain::Result<bool> tryAcquire(const std::string& name, const std::string& holder,
                                  domain::Timestamp now, domain::Duration ttl) override;
  domain::Status release(const std::string& name, const std::string& holder) override;
  domain::Result<std::optional<std::string>> holder(const std::string& name,
                                                    domain::Timestamp now) const override;

 private:
  Database& db_;
};

class SqliteSettingsRepository : public ports::SettingsRepository {
 public:
  explicit SqliteSettingsRepository(Database& db) : db_(db) {}
  domain::Result<std::optional<domain::Setting>> get(const std::string& key) const override;
  domain::Status put(const domain::Setting& setting) override;

 private:
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite
