// MongoStore: every store port on one MongoDB database (`store.url = mongodb://...`), for
// several instances at scale. Driver types stay inside the adapter. Thread-safe.
#pragma once

#include <memory>
#include <string>

#include <certsteward/ports/store.hpp>

namespace certsteward::adapters::mongo {

class MongoStore : public ports::Store {
 public:
  // Connects through a client pool, refuses servers older than 6.0 (buildInfo), and creates
  // every index. invalid_argument for a bad URI; unavailable when no server answers;
  // failed_precondition for an old server.
  static domain::Result<std::unique_ptr<MongoStore>> open(const std::string& uri);
  ~MongoStore() override;

  // Sends `ping`; unavailable while the server cannot be reached (recovers by itself).
  domain::Status ping() override;

  // Drops the whole database. For tests only.
  domain::Status dropDatabaseForTest();

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
  ports::CaActivityLog& caActivity() override;
  ports::LeaderLock& leaderLock() override;
  ports::SettingsRepository& settings() override;
  ports::Transactions& transactions() override;

 private:
  struct Parts;
  explicit MongoStore(std::unique_ptr<Parts> parts);
  std::unique_ptr<Parts> parts_;
};

// "6.0.3" -> true; anything below 6.0 or unparsable -> false.
bool isSupportedServerVersion(const std::string& version);

}  // namespace certsteward::adapters::mongo
