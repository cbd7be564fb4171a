// The rules of configuration resources: their own fields, and between them — a zone names an
// active DNS credential of its project; a notification rule names channels of its project; a
// DNS credential in use by a zone cannot be deleted.
#pragma once

#include <string>
#include <vector>

#include <certsteward/domain/acme_account.hpp>
#include <certsteward/domain/credential.hpp>
#include <certsteward/domain/distribution_settings.hpp>
#include <certsteward/domain/dns_credential.hpp>
#include <certsteward/domain/module_config.hpp>
#include <certsteward/domain/notification.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/zone.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/credential_repository.hpp>
#include <certsteward/ports/distribution_repository.hpp>
#include <certsteward/ports/dns_credential_repository.hpp>
#include <certsteward/ports/module_config_repository.hpp>
#include <certsteward/ports/notification_channel_repository.hpp>
#include <certsteward/ports/zone_repository.hpp>

namespace certsteward::services {

// The fields of one resource on their own (invalid_argument, reason kMalformed for an unknown
// value): an ACME directory is an https:// URL; a DNS provider is a catalog kind; a credential
// is an ssh_key, password or token; a notification channel is a webhook or email.
domain::Status checkAcmeAccount(const domain::AcmeAccount& account);
domain::Status checkDnsCredential(const domain::DnsCredential& credential,
                                  const std::vector<std::string>& execCommands);
domain::Status checkCredential(const domain::Credential& credential);
domain::Status checkNotificationChannel(const domain::NotificationChannel& channel);

// invalid_argument (422) naming the field.
domain::Status checkZone(const domain::Zone& zone,
                         const ports::DnsCredentialRepository& credentials);
domain::Status checkNotificationRule(const domain::NotificationRule& rule,
                                     const ports::NotificationChannelRepository& channels);
// The module is known; every target's effective settings are valid for it (see
// distribution_settings.hpp); every target's credential_id (when set) names a credential of the
// project of a kind the module accepts.
domain::Status checkModuleConfig(const domain::ModuleConfig& config,
                                 const ports::CredentialRepository& credentials,
                                 const domain::DistributionPolicy& policy);
// "module <id>" for every module configuration whose targets use the credential.
domain::Result<std::vector<std::string>> modulesUsing(const domain::Credential& credential,
                                                      const ports::ModuleConfigRepository& modules);
// "distribution <id>" for every distribution through the module configuration.
domain::Result<std::vector<std::string>> distributionsUsing(
    const domain::ModuleConfig& config, const ports::DistributionRepository& distributions);
// "certificate <id>" for each certificate whose HTTP-01 answers go through `config`'s webroot
// (only file and ssh configurations can be such; others are not looked at).
domain::Result<std::vector<std::string>> certificatesAnsweringThrough(
    const domain::ModuleConfig& config, const ports::CertificateRepository& certificates);

// "zone <id>" for every zone of the project that uses the credential.
domain::Result<std::vector<std::string>> zonesUsing(const domain::DnsCredential& credential,
                                                    const ports::ZoneRepository& zones);

}  // namespace certsteward::services
