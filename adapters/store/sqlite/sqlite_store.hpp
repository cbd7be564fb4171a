// SqliteStore: every store port on one SQLite file (`store.url = sqlite://<path>`), the
// embedded default. Several processes may open the same file: WAL mode, a busy timeout, and
// BEGIN IMMEDIATE around every read-modify-write keep them consistent. Thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include <certsteward/ports/store.hpp>

namespace certsteward::adapters::sqlite {

struct SqliteOptions {
  std::string path;
  int readers = 4;                                // pooled read connections
  std::chrono::milliseconds busy_timeout{10000};  // wait for other processes' writes
};

class SqliteStore : public ports::Store {
 public:
  // Opens (creating) the file and migrates its schema. unavailable when the file cannot be
  // opened; failed_precondition when its schema is newer than this binary.
  static domain::Result<std::unique_ptr<SqliteStore>> open(const SqliteOptions& options);
  ~SqliteStore() override;

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
  explicit SqliteStore(std::unique_ptr<Parts> parts);
  std::unique_ptr<Parts> parts_;
};

}  // namespace certsteward::adapters::sqlite
