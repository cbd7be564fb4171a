// Store: every repository and queue of one database, chosen by `store.url` (memory, SQLite,
// MongoDB). The app owns one Store; services hold the repositories they need by reference.
#pragma once

#include <memory>

#include <certsteward/domain/result.hpp>
#include <certsteward/ports/acme_account_repository.hpp>
#include <certsteward/ports/audit_log.hpp>
#include <certsteward/ports/ca_activity_log.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/challenge_tokens.hpp>
#include <certsteward/ports/credential_repository.hpp>
#include <certsteward/ports/distribution_repository.hpp>
#include <certsteward/ports/dns_credential_repository.hpp>
#include <certsteward/ports/event_log.hpp>
#include <certsteward/ports/idempotency_store.hpp>
#include <certsteward/ports/job_log_repository.hpp>
#include <certsteward/ports/job_queue.hpp>
#include <certsteward/ports/leader_lock.hpp>
#include <certsteward/ports/license_repository.hpp>
#include <certsteward/ports/membership_repository.hpp>
#include <certsteward/ports/module_config_repository.hpp>
#include <certsteward/ports/notification_channel_repository.hpp>
#include <certsteward/ports/notification_delivery_repository.hpp>
#include <certsteward/ports/notification_rule_repository.hpp>
#include <certsteward/ports/notification_state_repository.hpp>
#include <certsteward/ports/project_repository.hpp>
#include <certsteward/ports/rate_limit_counter.hpp>
#include <certsteward/ports/refresh_token_store.hpp>
#include <certsteward/ports/settings_repository.hpp>
#include <certsteward/ports/transactions.hpp>
#include <certsteward/ports/user_repository.hpp>
#include <certsteward/ports/zone_repository.hpp>

namespace certsteward::ports {

class Store {
 public:
  virtual ~Store() = default;

  /** @return ok when the database answers; unavailable otherwise (readyz). Thread-safe. */
  virtual domain::Status ping() = 0;

  virtual CertificateRepository& certificates() = 0;
  virtual JobQueue& jobs() = 0;
  virtual JobLogRepository& jobLogs() = 0;
  virtual ProjectRepository& projects() = 0;
  virtual UserRepository& users() = 0;
  virtual MembershipRepository& memberships() = 0;
  virtual AcmeAccountRepository& acmeAccounts() = 0;
  virtual DnsCredentialRepository& dnsCredentials() = 0;
  virtual ZoneRepository& zones() = 0;
  virtual CredentialRepository& credentials() = 0;
  virtual ModuleConfigRepository& moduleConfigs() = 0;
  virtual DistributionRepository& distributions() = 0;
  virtual NotificationChannelRepository& notificationChannels() = 0;
  virtual NotificationRuleRepository& notificationRules() = 0;
  virtual NotificationDeliveryRepository& notificationDeliveries() = 0;
  virtual NotificationStateRepository& notificationStates() = 0;
  virtual AuditLog& auditLog() = 0;
  virtual EventLog& events() = 0;
  virtual LicenseRepository& license() = 0;
  virtual RefreshTokenStore& refreshTokens() = 0;
  virtual IdempotencyStore& idempotency() = 0;
  virtual ChallengeTokens& challengeTokens() = 0;
  virtual RateLimitCounter& rateLimits() = 0;
  virtual LeaderLock& leaderLock() = 0;
  virtual CaActivityLog& caActivity() = 0;
  virtual SettingsRepository& settings() = 0;
  // Several of the above written together or not at all. Rate-limit counters, refresh tokens,
  // idempotency records, challenge tokens, the leader lock and CA activity are written outside
  // transactions.
  virtual Transactions& transactions() = 0;
};

using StorePtr = std::unique_ptr<Store>;

}  // namespace certsteward::ports
