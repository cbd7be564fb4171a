// The rules of configuration resources: their own fields, and between them — a zone names an
// active DNS credential of its project; a notification rule names channels of its project; a
// DNS credential in use by a zone cannot be deleted.
#pragma once

#include <string>
#include <vector>

#include "domain/acme_account.hpp"
#include "domain/credential.hpp"
#include "domain/distribution_settings.hpp"
#include "domain/dns_credential.hpp"
#include "domain/module_config.hpp"
#include "domain/notification.hpp"
#include "domain/result.hpp"
#include "domain/zone.hpp"
#include "ports/credential_repository.hpp"
#include "ports/distribution_repository.hpp"
#include "ports/dns_credential_repository.hpp"
#include "ports/module_config_repository.hpp"
#include "ports/notification_channel_repository.hpp"
#include "ports/zone_repository.hpp"

namespace certsteward::domain {

// The fields of one resource on their own (invalid_argument, reason kMalformed for an unknown
// value): an ACME directory is an https:// URL; a DNS provider is rfc2136 or exec; a credential
// is an ssh_key, password or token; a notification channel is a webhook or email.
Status checkAcmeAccount(const AcmeAccount& account);
Status checkDnsCredential(const DnsCredential& credential);
Status checkCredential(const Credential& credential);
Status checkNotificationChannel(const NotificationChannel& channel);

// invalid_argument (422) naming the field.
Status checkZone(const Zone& zone, const ports::DnsCredentialRepository& credentials);
Status checkNotificationRule(const NotificationRule& rule,
                             const ports::NotificationChannelRepository& channels);
// The module is known; every target's effective settings are valid for it (see
// distribution_settings.hpp); every target's credential_id (when set) names a credential of the
// project of a kind the module accepts.
Status checkModuleConfig(const ModuleConfig& config, const ports::CredentialRepository& credentials,
                         const DistributionPolicy& policy);
// "module <id>" for every module configuration whose targets use the credential.
Result<std::vector<std::string>> modulesUsing(const Credential& credential,
                                              const ports::ModuleConfigRepository& modules);
// "distribution <id>" for every distribution through the module configuration.
Result<std::vector<std::string>> distributionsUsing(
    const ModuleConfig& config, const ports::DistributionRepository& distributions);

// "zone <id>" for every zone of the project that uses the credential.
Result<std::vector<std::string>> zonesUsing(const DnsCredential& credential,
                                            const ports::ZoneRepository& zones);

}  // namespace certsteward::domain
