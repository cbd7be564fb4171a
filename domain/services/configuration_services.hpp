// ConfigurationServices: the configuration resources of a project — ACME accounts, DNS
// credentials, zones, credentials, module configurations, notification channels and rules —
// each a ResourceService with its rules (domain/services/resource_rules.hpp): the fields it
// accepts, what it must refer to, and what blocks its deletion. An embedding team that builds
// this over its own repositories gets exactly the server's behaviour.
#pragma once

#include "domain/acme_account.hpp"
#include "domain/credential.hpp"
#include "domain/distribution_settings.hpp"
#include "domain/dns_credential.hpp"
#include "domain/module_config.hpp"
#include "domain/notification.hpp"
#include "domain/services/resource_service.hpp"
#include "domain/zone.hpp"
#include "ports/acme_account_repository.hpp"
#include "ports/credential_repository.hpp"
#include "ports/distribution_repository.hpp"
#include "ports/dns_credential_repository.hpp"
#include "ports/module_config_repository.hpp"
#include "ports/notification_channel_repository.hpp"
#include "ports/notification_rule_repository.hpp"
#include "ports/zone_repository.hpp"

namespace certsteward::domain {

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
  };

  ConfigurationServices(Ports ports, UnitOfWork& work, const AccessControl& access,
                        AuditService& audit, DistributionPolicy distribution = {});
  ConfigurationServices(const ConfigurationServices&) = delete;
  ConfigurationServices& operator=(const ConfigurationServices&) = delete;

 private:
  Ports p_;  // before the services: their rules read it
  DistributionPolicy distribution_;

 public:
  ResourceService<AcmeAccount> acmeAccounts;
  ResourceService<DnsCredential> dnsCredentials;
  ResourceService<Zone> zones;
  ResourceService<Credential> credentials;
  ResourceService<NotificationChannel> channels;
  ResourceService<NotificationRule> rules;
  ResourceService<ModuleConfig> modules;
};

}  // namespace certsteward::domain
