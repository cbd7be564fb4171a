// Each configuration resource wired to its rules.
#include <certsteward/services/configuration_services.hpp>

#include <certsteward/domain/dns_settings.hpp>
#include <certsteward/domain/notification_settings.hpp>
#include <certsteward/services/resource_rules.hpp>

namespace certsteward::services {

ConfigurationServices::ConfigurationServices(Ports ports, UnitOfWork& work,
                                             const AccessControl& access, AuditService& audit,
                                             domain::DistributionPolicy distribution,
                                             std::vector<std::string> dnsExecCommands)
    : p_(ports),
      distribution_(std::move(distribution)),
      dnsExecCommands_(std::move(dnsExecCommands)),
      acmeAccounts(p_.acmeAccounts, p_.secrets, p_.ids, p_.clock, work, access, audit,
                   {"acme_account",
                    &domain::AcmeAccount::eab_hmac_sealed,
                    checkAcmeAccount,
                    {},
                    {},
                    {},
                    [this](domain::AcmeAccount& a, const domain::AcmeAccount* before,
                           const Principal& who, const RequestContext& ctx) -> domain::Status {
                      if (p_.caProviders == nullptr) return {};
                      return p_.caProviders->bindAccount(a, before, &who, ctx);
                    },
                    {kCaProvidersGuard}}),
      dnsCredentials(p_.dnsCredentials, p_.secrets, p_.ids, p_.clock, work, access, audit,
                     {"dns_credential", &domain::DnsCredential::secret_sealed,
                      [this](const domain::DnsCredential& d) {
                        return checkDnsCredential(d, dnsExecCommands_);
                      },
                      [this](const domain::DnsCredential& d) { return zonesUsing(d, p_.zones); },
                      domain::checkDnsSecret, domain::checkDnsCredentialChange}),
      zones(p_.zones, p_.secrets, p_.ids, p_.clock, work, access, audit,
            {"zone",
             nullptr,
             [this](const domain::Zone& z) { return checkZone(z, p_.dnsCredentials); },
             {}}),
      credentials(
          p_.credentials, p_.secrets, p_.ids, p_.clock, work, access, audit,
          {"credential", &domain::Credential::secret_sealed, checkCredential,
           [this](const domain::Credential& c) { return modulesUsing(c, p_.moduleConfigs); }}),
      channels(p_.channels, p_.secrets, p_.ids, p_.clock, work, access, audit,
               {"notification_channel",
                &domain::NotificationChannel::secret_sealed,
                checkNotificationChannel,
                {},
                domain::checkChannelSecret}),
      rules(p_.rules, p_.secrets, p_.ids, p_.clock, work, access, audit,
            {"notification_rule",
             nullptr,
             [this](const domain::NotificationRule& r) {
               return checkNotificationRule(r, p_.channels);
             },
             {}}),
      modules(p_.moduleConfigs, p_.secrets, p_.ids, p_.clock, work, access, audit,
              {"module_config", nullptr,
               [this](const domain::ModuleConfig& m) -> domain::Status {
                 if (auto s = checkModuleConfig(m, p_.credentials, distribution_); !s) return s;
                 return keepsWebroots(m);
               },
               [this](const domain::ModuleConfig& m) -> domain::Result<std::vector<std::string>> {
                 auto refs = distributionsUsing(m, p_.distributions);
                 if (!refs || p_.certificates == nullptr) return refs;
                 auto http01 = certificatesAnsweringThrough(m, *p_.certificates);
                 if (!http01) return http01.error();
                 refs->insert(refs->end(), http01->begin(), http01->end());
                 return refs;
               }}) {}

domain::Status ConfigurationServices::keepsWebroots(const domain::ModuleConfig& config) const {
  if (p_.certificates == nullptr) return {};
  // What the change would break for certificates answering HTTP-01 through it, if any.
  std::string field;
  if (config.module != "file" && config.module != "ssh") {
    field = "module";
  } else if (config.targets.empty()) {
    field = "targets";
  } else {
    for (std::size_t i = 0; i < config.targets.size() && field.empty(); ++i) {
      if (!domain::settingOf(domain::effectiveSettings(config, config.targets[i]), "webroot")
               .empty()) {
        continue;
      }
      // Named where a form shows it: the target's own setting when it has one, else the shared.
      field = config.targets[i].settings.count("webroot") > 0
                  ? "targets[" + std::to_string(i) + "].settings.webroot"
                  : "settings.webroot";
    }
  }
  if (field.empty()) return {};
  // Only a stored file/ssh configuration can have such certificates (a new one has none).
  auto stored = p_.moduleConfigs.get(config.project_id, config.id);
  if (!stored) {
    return stored.error().code == domain::ErrorCode::not_found ? domain::Status{}
                                                               : domain::Status{stored.error()};
  }
  auto answering = certificatesAnsweringThrough(*stored, *p_.certificates);
  if (!answering) return answering.error();
  if (answering->empty()) return {};
  return domain::Error{domain::ErrorCode::invalid_argument,
                       field +
                           ": certificates answer HTTP-01 through this configuration's "
                           "webroot (" +
                           answering->front() + (answering->size() > 1 ? ", ..." : "") +
                           "): it must stay a file or ssh configuration whose every target has "
                           "a webroot",
                       domain::kInvalidField,
                       {field}};
}

}  // namespace certsteward::services
