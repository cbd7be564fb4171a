// PgStore: every store port on one PostgreSQL database (`store.url = postgresql://...`), for
// several instances on one primary with standbys. Transactions are READ COMMITTED; where the
// SQLite store relies on its single writer, this one locks rows (FOR UPDATE, SKIP LOCKED for
// claims) or takes an advisory lock (the audit chain, an idempotency key, the services'
// guards). A URL naming several hosts with target_session_attrs=read-write finds the primary
// again after a failover. Thread-safe.
#pragma once

#include <memory>
#include <string>

#include <certsteward/adapters/store/postgres/pg_options.hpp>
#include <certsteward/ports/store.hpp>

namespace certsteward::adapters::postgres {

class PgStore : public ports::Store {
 public:
  // Connects and migrates the schema. invalid_argument for a URL libpq cannot read;
  // unavailable when no server answers; failed_precondition when the schema is newer than
  // this binary. Messages never hold the password.
  static domain::Result<std::unique_ptr<PgStore>> open(const std::string& url,
                                                       const PgOptions& options = {});
  ~PgStore() override;

  // Ready only on the primary: a standby (or a server in recovery) refuses writes.
  domain::Status ping() override;

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

 private:
  struct Parts;
  explicit PgStore(std::unique_ptr<Parts> parts);
  std::unique_ptr<Parts> parts_;
};

}  // namespace certsteward::adapters::postgres
