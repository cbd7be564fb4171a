// ConfigurationServices: the configuration resources of a project — ACME accounts, DNS
// credentials, zones, credentials, module configurations, notification channels and rules —
// each a ResourceService with its rules (services/resource_rules.hpp): the fields it
// accepts, what it must refer to, and what blocks its deletion. An embedding team that builds
// this over its own repositories gets exactly the server's behaviour.
#pragma once

#include <certsteward/domain/acme_account.hpp>
#include <certsteward/domain/credential.hpp>
#include <certsteward/domain/distribution_settings.hpp>
#include <certsteward/domain/dns_credential.hpp>
#include <certsteward/domain/module_config.hpp>
#include <certsteward/domain/notification.hpp>
#include <certsteward/domain/zone.hpp>
#include <certsteward/ports/acme_account_repository.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/credential_repository.hpp>
#include <certsteward/ports/distribution_repository.hpp>
#include <certsteward/ports/dns_credential_repository.hpp>
#include <certsteward/ports/module_config_repository.hpp>
#include <certsteward/ports/notification_channel_repository.hpp>
#include <certsteward/ports/notification_rule_repository.hpp>
#include <certsteward/ports/zone_repository.hpp>
#include <certsteward/services/ca_provider_service.hpp>
#include <certsteward/services/resource_service.hpp>

namespace certsteward::services {

class ConfigurationServices {
 public:
  struct Ports {
    ports::AcmeAccountRepository& acmeAccounts;
    ports::DnsCredentialRepository& dnsCredentials;
    ports::ZoneRepository& zones;
    ports::CredentialRepository& credentials;
    ports::ModuleConfigRepository& moduleConfigs;
    ports::NotificationChannelRepository& channels;
    ports::NotificationRuleRepository& rules;
    ports::DistributionRepository& distributions;  // what blocks deleting a module configuration
    ports::SecretBox& secrets;
    ports::IdGenerator& ids;
    const ports::Clock& clock;
    // What else blocks deleting a file or ssh module configuration: certificates whose HTTP-01
    // answers go through its webroot (none: not checked).
    const ports::CertificateRepository* certificates = nullptr;
    // Links each ACME account to its CA provider (none: accounts keep a bare directory URL).
    CaProviderService* caProviders = nullptr;
  };

  ConfigurationServices(Ports ports, UnitOfWork& work, const AccessControl& access,
                        AuditService& audit, domain::DistributionPolicy distribution = {},
                        std::vector<std::string> dnsExecCommands = {});
  ConfigurationServices(const ConfigurationServices&) = delete;
  ConfigurationServices& operator=(const ConfigurationServices&) = delete;

 private:
  Ports p_;  // before the services: their rules read it
  domain::DistributionPolicy distribution_;
  std::vector<std::string> dnsExecCommands_;  // the only commands an exec DNS credential may name
  // 422 when a stored file/ssh configuration that certificates answer HTTP-01 through would leave
  // a target without a webroot.
  domain::Status keepsWebroots(const domain::ModuleConfig& config) const;

 public:
  ResourceService<domain::AcmeAccount> acmeAccounts;
  ResourceService<domain::DnsCredential> dnsCredentials;
  ResourceService<domain::Zone> zones;
  ResourceService<domain::Credential> credentials;
  ResourceService<domain::NotificationChannel> channels;
  ResourceService<domain::NotificationRule> rules;
  ResourceService<domain::ModuleConfig> modules;
};

}  // namespace certsteward::services
