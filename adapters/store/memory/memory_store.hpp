// MemoryStore: every store port in memory (`store.url = memory:`) — for tests and embedders.
// Nothing survives the process. Thread-safe.
#pragma once

#include <memory>

#include <certsteward/ports/store.hpp>

namespace certsteward::adapters::memory {

class MemoryAuditLog;

class MemoryStore : public ports::Store {
 public:
  MemoryStore();
  ~MemoryStore() override;

  domain::Status ping() override { return {}; }

  ports::CertificateRepository& certificates() override;
  ports::JobQueue& jobs() override;
  ports::JobLogRepository& jobLogs() override;
  ports::EventLog& events() override;
  ports::ProjectRepository& projects() override;
  ports::UserRepository& users() override;
  ports::MembershipRepository& memberships() override;
  ports::AcmeAccountRepository& acmeAccounts() override;
  ports::DnsCredentialRepository& dnsCredentials() override;
  ports::ZoneRepository& zones() override;
  ports::CredentialRepository& credentials() override;
  ports::ModuleConfigRepository& moduleConfigs() override;
  ports::DistributionRepository& distributions() override;
  ports::NotificationChannelRepository& notificationChannels() override;
  ports::NotificationRuleRepository& notificationRules() override;
  ports::NotificationDeliveryRepository& notificationDeliveries() override;
  ports::NotificationStateRepository& notificationStates() override;
  ports::AuditLog& auditLog() override;
  ports::LicenseRepository& license() override;
  ports::RefreshTokenStore& refreshTokens() override;
  ports::IdempotencyStore& idempotency() override;
  ports::ChallengeTokens& challengeTokens() override;
  ports::RateLimitCounter& rateLimits() override;
  ports::LeaderLock& leaderLock() override;
  ports::CaActivityLog& caActivity() override;
  ports::SettingsRepository& settings() override;
  ports::Transactions& transactions() override;

  // The concrete audit log, for tamper tests (memory_audit_log_tamper.hpp).
  MemoryAuditLog& memoryAuditLog();

 private:
  struct Parts;
  std::unique_ptr<Parts> parts_;
};

}  // namespace certsteward::adapters::memory
