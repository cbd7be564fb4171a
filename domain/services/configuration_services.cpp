// Each configuration resource wired to its rules.
#include "domain/services/configuration_services.hpp"

#include "domain/notification_settings.hpp"
#include "domain/services/resource_rules.hpp"

namespace certsteward::domain {

ConfigurationServices::ConfigurationServices(Ports ports, UnitOfWork& work,
                                             const AccessControl& access, AuditService& audit,
                                             DistributionPolicy distribution)
    : p_(ports),
      distribution_(std::move(distribution)),
      acmeAccounts(p_.acmeAccounts, p_.secrets, p_.ids, p_.clock, work, access, audit,
                   {"acme_account", &AcmeAccount::eab_hmac_sealed, checkAcmeAccount, {}}),
      dnsCredentials(p_.dnsCredentials, p_.secrets, p_.ids, p_.clock, work, access, audit,
                     {"dns_credential", &DnsCredential::secret_sealed, checkDnsCredential,
                      [this](const DnsCredential& d) { return zonesUsing(d, p_.zones); }}),
      zones(
          p_.zones, p_.secrets, p_.ids, p_.clock, work, access, audit,
          {"zone", nullptr, [this](const Zone& z) { return checkZone(z, p_.dnsCredentials); }, {}}),
      credentials(p_.credentials, p_.secrets, p_.ids, p_.clock, work, access, audit,
                  {"credential", &Credential::secret_sealed, checkCredential,
                   [this](const Credential& c) { return modulesUsing(c, p_.moduleConfigs); }}),
      channels(p_.channels, p_.secrets, p_.ids, p_.clock, work, access, audit,
               {"notification_channel",
                &NotificationChannel::secret_sealed,
                checkNotificationChannel,
                {},
                checkChannelSecret}),
      rules(p_.rules, p_.secrets, p_.ids, p_.clock, work, access, audit,
            {"notification_rule",
             nullptr,
             [this](const NotificationRule& r) { return checkNotificationRule(r, p_.channels); },
             {}}),
      modules(p_.moduleConfigs, p_.secrets, p_.ids, p_.clock, work, access, audit,
              {"module_config", nullptr,
               [this](const ModuleConfig& m) {
                 return checkModuleConfig(m, p_.credentials, distribution_);
               },
               [this](const ModuleConfig& m) { return distributionsUsing(m, p_.distributions); }}) {
}

}  // namespace certsteward::domain
