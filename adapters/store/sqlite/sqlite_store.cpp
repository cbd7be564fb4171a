// Opens the database, migrates it, and wires the SQLite repositories into one Store.
#include <certsteward/adapters/store/sqlite/sqlite_store.hpp>

#include <sys/stat.h>

#include <optional>
#include <utility>

#include <certsteward/adapters/store/sqlite/private_files.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_audit_log.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_ca_activity_log.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_certificate_repository.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_challenge_tokens.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_event_log.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_idempotency_store.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_job_log_repository.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_job_queue.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_leader_lock.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_license_repository.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_membership_repository.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_project_repository.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_rate_limit_counter.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_refresh_token_store.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_resource_repository.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_schema.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_settings_repository.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_transactions.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_user_repository.hpp>
#include <certsteward/ports/acme_account_repository.hpp>
#include <certsteward/ports/credential_repository.hpp>
#include <certsteward/ports/dns_credential_repository.hpp>
#include <certsteward/ports/module_config_repository.hpp>
#include <certsteward/ports/notification_channel_repository.hpp>

namespace certsteward::adapters::sqlite {
namespace {

// The identity of the file at `path` (device and inode), nullopt when there is none.
std::optional<std::pair<dev_t, ino_t>> fileIdentity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return std::make_pair(st.st_dev, st.st_ino);
}

}  // namespace

struct SqliteStore::Parts {
  explicit Parts(const SqliteOptions& o)
      : db(o.path, o.readers, o.busy_timeout),
        certificates(db),
        jobs(db),
        jobLogs(db),
        events(db),
        projects(db),
        users(db),
        memberships(db),
        acmeAccounts(db, "acme_account"),
        dnsCredentials(db, "dns_credential"),
        zones(db),
        credentials(db, "credential"),
        moduleConfigs(db, "module_config"),
        distributions(db),
        notificationChannels(db, "notification_channel"),
        notificationRules(db),
        notificationDeliveries(db),
        notificationStates(db),
        auditLog(db),
        license(db),
        refreshTokens(db),
        idempotency(db),
        challengeTokens(db),
        rateLimits(db),
        leaderLock(db),
        caActivity(db),
        settings(db),
        transactions(db) {}

  Database db;
  SqliteCertificateRepository certificates;
  SqliteJobQueue jobs;
  SqliteJobLogRepository jobLogs;
  SqliteEventLog events;
  SqliteProjectRepository projects;
  SqliteUserRepository users;
  SqliteMembershipRepository memberships;
  SqliteResourceRepository<ports::AcmeAccountRepository, domain::AcmeAccount> acmeAccounts;
  SqliteResourceRepository<ports::DnsCredentialRepository, domain::DnsCredential> dnsCredentials;
  SqliteZoneRepository zones;
  SqliteResourceRepository<ports::CredentialRepository, domain::Credential> credentials;
  SqliteResourceRepository<ports::ModuleConfigRepository, domain::ModuleConfig> moduleConfigs;
  SqliteDistributionRepository distributions;
  SqliteResourceRepository<ports::NotificationChannelRepository, domain::NotificationChannel>
      notificationChannels;
  SqliteNotificationRuleRepository notificationRules;
  SqliteNotificationDeliveryRepository notificationDeliveries;
  SqliteNotificationStateRepository notificationStates;
  SqliteAuditLog auditLog;
  SqliteLicenseRepository license;
  SqliteRefreshTokenStore refreshTokens;
  SqliteIdempotencyStore idempotency;
  SqliteChallengeTokens challengeTokens;
  SqliteRateLimitCounter rateLimits;
  SqliteLeaderLock leaderLock;
  SqliteCaActivityLog caActivity;
  SqliteSettingsRepository settings;
  SqliteTransactions transactions;
  std::optional<std::pair<dev_t, ino_t>> identity;  // of the file when it was opened
};

domain::Result<std::unique_ptr<SqliteStore>> SqliteStore::open(const SqliteOptions& options) {
  return guarded([&]() -> domain::Result<std::unique_ptr<SqliteStore>> {
    if (auto made = makeDatabaseFilePrivate(options.path); !made) return made.error();
    auto parts = std::make_unique<Parts>(options);
    {
      auto writer = parts->db.writer();
      if (auto migrated = migrate(*writer); !migrated) return migrated.error();
    }
    parts->identity = fileIdentity(parts->db.path());
    return std::unique_ptr<SqliteStore>(new SqliteStore(std::move(parts)));
  });
}

SqliteStore::SqliteStore(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}
SqliteStore::~SqliteStore() = default;

domain::Status SqliteStore::ping() {
  // Deleted or replaced under the running server, the file it holds open is no longer the one
  // a restart would open: everything written from then on would vanish. Not ready.
  if (fileIdentity(parts_->db.path()) != parts_->identity) {
    return domain::makeError(domain::ErrorCode::unavailable,
                             "the database file was removed or replaced under the server");
  }
  return guarded([&]() -> domain::Status {
    auto c = parts_->db.reader();
    auto s = c->prepare("SELECT COUNT(*) FROM schema_migrations");
    s.step();
    return {};
  });
}

ports::CertificateRepository& SqliteStore::certificates() {
  return parts_->certificates;
}
ports::JobQueue& SqliteStore::jobs() {
  return parts_->jobs;
}
ports::JobLogRepository& SqliteStore::jobLogs() {
  return parts_->jobLogs;
}

ports::EventLog& SqliteStore::events() {
  return parts_->events;
}
ports::ProjectRepository& SqliteStore::projects() {
  return parts_->projects;
}
ports::UserRepository& SqliteStore::users() {
  return parts_->users;
}
ports::MembershipRepository& SqliteStore::memberships() {
  return parts_->memberships;
}
ports::AcmeAccountRepository& SqliteStore::acmeAccounts() {
  return parts_->acmeAccounts;
}
ports::DnsCredentialRepository& SqliteStore::dnsCredentials() {
  return parts_->dnsCredentials;
}
ports::ZoneRepository& SqliteStore::zones() {
  return parts_->zones;
}
ports::CredentialRepository& SqliteStore::credentials() {
  return parts_->credentials;
}
ports::ModuleConfigRepository& SqliteStore::moduleConfigs() {
  return parts_->moduleConfigs;
}
ports::DistributionRepository& SqliteStore::distributions() {
  return parts_->distributions;
}
ports::NotificationChannelRepository& SqliteStore::notificationChannels() {
  return parts_->notificationChannels;
}
ports::NotificationRuleRepository& SqliteStore::notificationRules() {
  return parts_->notificationRules;
}
ports::NotificationDeliveryRepository& SqliteStore::notificationDeliveries() {
  return parts_->notificationDeliveries;
}
ports::NotificationStateRepository& SqliteStore::notificationStates() {
  return parts_->notificationStates;
}
ports::AuditLog& SqliteStore::auditLog() {
  return parts_->auditLog;
}
ports::LicenseRepository& SqliteStore::license() {
  return parts_->license;
}
ports::RefreshTokenStore& SqliteStore::refreshTokens() {
  return parts_->refreshTokens;
}
ports::IdempotencyStore& SqliteStore::idempotency() {
  return parts_->idempotency;
}
ports::ChallengeTokens& SqliteStore::challengeTokens() {
  return parts_->challengeTokens;
}
ports::RateLimitCounter& SqliteStore::rateLimits() {
  return parts_->rateLimits;
}
ports::CaActivityLog& SqliteStore::caActivity() {
  return parts_->caActivity;
}
ports::LeaderLock& SqliteStore::leaderLock() {
  return parts_->leaderLock;
}
ports::SettingsRepository& SqliteStore::settings() {
  return parts_->settings;
}
ports::Transactions& SqliteStore::transactions() {
  return parts_->transactions;
}

}  // namespace certsteward::adapters::sqlite
