// Application: the composition root. Builds the adapters the configuration names, the domain
// services over them, and the HTTP server; owns them all for the life of the process.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/app/config.hpp>
#include <certsteward/domain/audit.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/user.hpp>
#include <certsteward/services/verified_migration.hpp>

namespace certsteward::app {

class Application {
 public:
  static domain::Result<std::unique_ptr<Application>> create(const Config& config);
  ~Application();

  // First start on an empty store: creates the owner from CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME /
  // _PASSWORD, or "admin" with a generated password printed once on stdout.
  domain::Status bootstrap();

  // `certsteward user create`.
  domain::Status createUser(const std::string& username, const std::string& password,
                            domain::OrgRole role);

  // `certsteward user reset-password`.
  domain::Status resetPassword(const std::string& username, const std::string& password);

  // `certsteward audit verify`: the whole audit chain, offline.
  domain::Result<domain::AuditVerification> verifyAuditLog(
      const std::optional<domain::AuditHead>& expected);

  // `certsteward migrate`: everything `from` holds copied into the store `openTarget` opens
  // (empty; opened only once the source's chain verified), both audit chains verified with this
  // configuration's key (domain::VerifiedMigration).
  static domain::Result<services::VerifiedMigrationReport> migrate(
      Application& from,
      const std::function<domain::Result<std::unique_ptr<Application>>()>& openTarget,
      const std::function<void(const std::string&)>& progress);

  const Config& config() const;

  // Every route of the REST API as "METHOD /api/v1/...pattern" (`certsteward routes`): the
  // table that tests and documents are generated from.
  std::vector<std::string> routes() const;
  // The job types no handler is registered for (their jobs would fail saying so).
  std::vector<std::string> unhandledJobTypes() const;
  // Where the catalog (domain/catalog.hpp) and this build's adapters disagree: a described
  // distribution module or DNS provider no adapter drives, or a DNS provider the factory builds
  // that the catalog does not describe. Empty when they agree.
  std::vector<std::string> catalogMismatches() const;

  domain::Status startHttp();
  std::uint16_t httpPort() const;
  void stopHttp();
  // Whether the listener serves HTTPS (server.tls.*).
  bool servesHttps() const;

  // Worker threads for the standard lane (issuance and renewal jobs); stop lets running jobs
  // finish.
  void startWorkers();
  void stopWorkers();
  // The scheduler's leader election and sweeps.
  void startScheduler();
  void stopScheduler();

 private:
  struct Parts;
  explicit Application(std::unique_ptr<Parts> parts);
  // "<instance>#<boot>": this server across restarts, and this run of its process.
  std::string instanceId();
  std::unique_ptr<Parts> parts_;
};

}  // namespace certsteward::app
