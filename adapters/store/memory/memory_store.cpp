// Wires the in-memory repositories into one Store.
#include <certsteward/adapters/store/memory/memory_store.hpp>

#include <certsteward/adapters/store/memory/memory_audit_log.hpp>
#include <certsteward/adapters/store/memory/memory_ca_activity_log.hpp>
#include <certsteward/adapters/store/memory/memory_certificate_repository.hpp>
#include <certsteward/adapters/store/memory/memory_challenge_tokens.hpp>
#include <certsteward/adapters/store/memory/memory_event_log.hpp>
#include <certsteward/adapters/store/memory/memory_idempotency_store.hpp>
#include <certsteward/adapters/store/memory/memory_job_log_repository.hpp>
#include <certsteward/adapters/store/memory/memory_job_queue.hpp>
#include <certsteward/adapters/store/memory/memory_leader_lock.hpp>
#include <certsteward/adapters/store/memory/memory_license_repository.hpp>
#include <certsteward/adapters/store/memory/memory_membership_repository.hpp>
#include <certsteward/adapters/store/memory/memory_project_repository.hpp>
#include <certsteward/adapters/store/memory/memory_rate_limit_counter.hpp>
#include <certsteward/adapters/store/memory/memory_refresh_token_store.hpp>
#include <certsteward/adapters/store/memory/memory_resource_repositories.hpp>
#include <certsteward/adapters/store/memory/memory_settings_repository.hpp>
#include <certsteward/adapters/store/memory/memory_transactions.hpp>
#include <certsteward/adapters/store/memory/memory_user_repository.hpp>

namespace certsteward::adapters::memory {

struct MemoryStore::Parts {
  MemoryCertificateRepository certificates;
  MemoryJobQueue jobs;
  MemoryJobLogRepository jobLogs;
  MemoryEventLog events;
  MemoryProjectRepository projects;
  MemoryUserRepository users;
  MemoryMembershipRepository memberships;
  MemoryAcmeAccountRepository acmeAccounts;
  MemoryDnsCredentialRepository dnsCredentials;
  MemoryZoneRepository zones;
  MemoryCredentialRepository credentials;
  MemoryModuleConfigRepository moduleConfigs;
  MemoryDistributionRepository distributions;
  MemoryNotificationChannelRepository notificationChannels;
  MemoryNotificationRuleRepository notificationRules;
  MemoryNotificationDeliveryRepository notificationDeliveries;
  MemoryNotificationStateRepository notificationStates;
  MemoryAuditLog auditLog;
  MemoryLicenseRepository license;
  MemoryRefreshTokenStore refreshTokens;
  MemoryIdempotencyStore idempotency;
  MemoryChallengeTokens challengeTokens;
  MemoryRateLimitCounter rateLimits;
  MemoryLeaderLock leaderLock;
  MemoryCaActivityLog caActivity;
  MemorySettingsRepository settings;
  MemoryTransactions transactions;
};

MemoryStore::MemoryStore() : parts_(std::make_unique<Parts>()) {}
MemoryStore::~MemoryStore() = default;

ports::CertificateRepository& MemoryStore::certificates() {
  return parts_->certificates;
}
ports::JobQueue& MemoryStore::jobs() {
  return parts_->jobs;
}
ports::JobLogRepository& MemoryStore::jobLogs() {
  return parts_->jobLogs;
}

ports::EventLog& MemoryStore::events() {
  return parts_->events;
}
ports::ProjectRepository& MemoryStore::projects() {
  return parts_->projects;
}
ports::UserRepository& MemoryStore::users() {
  return parts_->users;
}
ports::MembershipRepository& MemoryStore::memberships() {
  return parts_->memberships;
}
ports::AcmeAccountRepository& MemoryStore::acmeAccounts() {
  return parts_->acmeAccounts;
}
ports::DnsCredentialRepository& MemoryStore::dnsCredentials() {
  return parts_->dnsCredentials;
}
ports::ZoneRepository& MemoryStore::zones() {
  return parts_->zones;
}
ports::CredentialRepository& MemoryStore::credentials() {
  return parts_->credentials;
}
ports::ModuleConfigRepository& MemoryStore::moduleConfigs() {
  return parts_->moduleConfigs;
}
ports::DistributionRepository& MemoryStore::distributions() {
  return parts_->distributions;
}
ports::NotificationChannelRepository& MemoryStore::notificationChannels() {
  return parts_->notificationChannels;
}
ports::NotificationRuleRepository& MemoryStore::notificationRules() {
  return parts_->notificationRules;
}
ports::NotificationDeliveryRepository& MemoryStore::notificationDeliveries() {
  return parts_->notificationDeliveries;
}
ports::NotificationStateRepository& MemoryStore::notificationStates() {
  return parts_->notificationStates;
}
ports::AuditLog& MemoryStore::auditLog() {
  return parts_->auditLog;
}
ports::LicenseRepository& MemoryStore::license() {
  return parts_->license;
}
ports::RefreshTokenStore& MemoryStore::refreshTokens() {
  return parts_->refreshTokens;
}
ports::IdempotencyStore& MemoryStore::idempotency() {
  return parts_->idempotency;
}
ports::ChallengeTokens& MemoryStore::challengeTokens() {
  return parts_->challengeTokens;
}
ports::CaActivityLog& MemoryStore::caActivity() {
  return parts_->caActivity;
}
ports::RateLimitCounter& MemoryStore::rateLimits() {
  return parts_->rateLimits;
}
ports::LeaderLock& MemoryStore::leaderLock() {
  return parts_->leaderLock;
}
ports::SettingsRepository& MemoryStore::settings() {
  return parts_->settings;
}
MemoryAuditLog& MemoryStore::memoryAuditLog() {
  return parts_->auditLog;
}

ports::Transactions& MemoryStore::transactions() {
  return parts_->transactions;
}

}  // namespace certsteward::adapters::memory
