// Connects, migrates, and wires the PostgreSQL repositories into one Store.
#include <certsteward/adapters/store/postgres/pg_store.hpp>

#include <utility>

#include <certsteward/adapters/store/postgres/pg_audit_log.hpp>
#include <certsteward/adapters/store/postgres/pg_ca_activity_log.hpp>
#include <certsteward/adapters/store/postgres/pg_certificate_repository.hpp>
#include <certsteward/adapters/store/postgres/pg_challenge_tokens.hpp>
#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/adapters/store/postgres/pg_event_log.hpp>
#include <certsteward/adapters/store/postgres/pg_idempotency_store.hpp>
#include <certsteward/adapters/store/postgres/pg_job_log_repository.hpp>
#include <certsteward/adapters/store/postgres/pg_job_queue.hpp>
#include <certsteward/adapters/store/postgres/pg_leader_lock.hpp>
#include <certsteward/adapters/store/postgres/pg_license_repository.hpp>
#include <certsteward/adapters/store/postgres/pg_membership_repository.hpp>
#include <certsteward/adapters/store/postgres/pg_project_repository.hpp>
#include <certsteward/adapters/store/postgres/pg_rate_limit_counter.hpp>
#include <certsteward/adapters/store/postgres/pg_refresh_token_store.hpp>
#include <certsteward/adapters/store/postgres/pg_resource_repository.hpp>
#include <certsteward/adapters/store/postgres/pg_schema.hpp>
#include <certsteward/adapters/store/postgres/pg_settings_repository.hpp>
#include <certsteward/adapters/store/postgres/pg_transactions.hpp>
#include <certsteward/adapters/store/postgres/pg_user_repository.hpp>
#include <certsteward/ports/acme_account_repository.hpp>
#include <certsteward/ports/credential_repository.hpp>
#include <certsteward/ports/dns_credential_repository.hpp>
#include <certsteward/ports/module_config_repository.hpp>
#include <certsteward/ports/notification_channel_repository.hpp>

namespace certsteward::adapters::postgres {

struct PgStore::Parts {
  explicit Parts(std::unique_ptr<PgDatabase> database)
      : owned(std::move(database)),
        db(*owned),
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

  std::unique_ptr<PgDatabase> owned;
  PgDatabase& db;
  PgCertificateRepository certificates;
  PgJobQueue jobs;
  PgJobLogRepository jobLogs;
  PgEventLog events;
  PgProjectRepository projects;
  PgUserRepository users;
  PgMembershipRepository memberships;
  PgResourceRepository<ports::AcmeAccountRepository, domain::AcmeAccount> acmeAccounts;
  PgResourceRepository<ports::DnsCredentialRepository, domain::DnsCredential> dnsCredentials;
  PgZoneRepository zones;
  PgResourceRepository<ports::CredentialRepository, domain::Credential> credentials;
  PgResourceRepository<ports::ModuleConfigRepository, domain::ModuleConfig> moduleConfigs;
  PgDistributionRepository distributions;
  PgResourceRepository<ports::NotificationChannelRepository, domain::NotificationChannel>
      notificationChannels;
  PgNotificationRuleRepository notificationRules;
  PgNotificationDeliveryRepository notificationDeliveries;
  PgNotificationStateRepository notificationStates;
  PgAuditLog auditLog;
  PgLicenseRepository license;
  PgRefreshTokenStore refreshTokens;
  PgIdempotencyStore idempotency;
  PgChallengeTokens challengeTokens;
  PgRateLimitCounter rateLimits;
  PgLeaderLock leaderLock;
  PgCaActivityLog caActivity;
  PgSettingsRepository settings;
  PgTransactions transactions;
};

domain::Result<std::unique_ptr<PgStore>> PgStore::open(const std::string& url,
                                                       const PgOptions& options) {
  auto db = PgDatabase::open(url, options);
  if (!db) return db.error();
  if (auto migrated = migrate(**db); !migrated) return migrated.error();
  return std::unique_ptr<PgStore>(new PgStore(std::make_unique<Parts>(std::move(*db))));
}

PgStore::PgStore(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}
PgStore::~PgStore() = default;

domain::Status PgStore::ping() {
  auto primary = parts_->db.isPrimary();
  if (!primary) return primary.error();
  if (!*primary) {
    return domain::makeError(domain::ErrorCode::unavailable,
                             "the database server is a standby (read-only), not the primary");
  }
  return {};
}

ports::CertificateRepository& PgStore::certificates() {
  return parts_->certificates;
}
ports::JobQueue& PgStore::jobs() {
  return parts_->jobs;
}
ports::JobLogRepository& PgStore::jobLogs() {
  return parts_->jobLogs;
}

ports::EventLog& PgStore::events() {
  return parts_->events;
}
ports::ProjectRepository& PgStore::projects() {
  return parts_->projects;
}
ports::UserRepository& PgStore::users() {
  return parts_->users;
}
ports::MembershipRepository& PgStore::memberships() {
  return parts_->memberships;
}
ports::AcmeAccountRepository& PgStore::acmeAccounts() {
  return parts_->acmeAccounts;
}
ports::DnsCredentialRepository& PgStore::dnsCredentials() {
  return parts_->dnsCredentials;
}
ports::ZoneRepository& PgStore::zones() {
  return parts_->zones;
}
ports::CredentialRepository& PgStore::credentials() {
  return parts_->credentials;
}
ports::ModuleConfigRepository& PgStore::moduleConfigs() {
  return parts_->moduleConfigs;
}
ports::DistributionRepository& PgStore::distributions() {
  return parts_->distributions;
}
ports::NotificationChannelRepository& PgStore::notificationChannels() {
  return parts_->notificationChannels;
}
ports::NotificationRuleRepository& PgStore::notificationRules() {
  return parts_->notificationRules;
}
ports::NotificationDeliveryRepository& PgStore::notificationDeliveries() {
  return parts_->notificationDeliveries;
}
ports::NotificationStateRepository& PgStore::notificationStates() {
  return parts_->notificationStates;
}
ports::AuditLog& PgStore::auditLog() {
  return parts_->auditLog;
}
ports::LicenseRepository& PgStore::license() {
  return parts_->license;
}
ports::RefreshTokenStore& PgStore::refreshTokens() {
  return parts_->refreshTokens;
}
ports::IdempotencyStore& PgStore::idempotency() {
  return parts_->idempotency;
}
ports::ChallengeTokens& PgStore::challengeTokens() {
  return parts_->challengeTokens;
}
ports::RateLimitCounter& PgStore::rateLimits() {
  return parts_->rateLimits;
}
ports::CaActivityLog& PgStore::caActivity() {
  return parts_->caActivity;
}
ports::LeaderLock& PgStore::leaderLock() {
  return parts_->leaderLock;
}
ports::SettingsRepository& PgStore::settings() {
  return parts_->settings;
}
ports::Transactions& PgStore::transactions() {
  return parts_->transactions;
}

}  // namespace certsteward::adapters::postgres
