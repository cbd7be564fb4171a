// Entity <-> JSON text, shared by the SQLite adapter (stored as TEXT) and the MongoDB adapter
// (converted to BSON). Timestamps are integer milliseconds since the epoch, enums their wire
// names, optional fields null. Unknown keys are ignored and missing keys keep their defaults, so
// documents written by older or newer versions still read. Boost.JSON stays in the .cpp.
#pragma once

#include <string>
#include <string_view>

#include <certsteward/domain/acme_account.hpp>
#include <certsteward/domain/audit.hpp>
#include <certsteward/domain/ca_provider.hpp>
#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/credential.hpp>
#include <certsteward/domain/distribution.hpp>
#include <certsteward/domain/dns_credential.hpp>
#include <certsteward/domain/job.hpp>
#include <certsteward/domain/ldap_settings.hpp>
#include <certsteward/domain/license.hpp>
#include <certsteward/domain/module_config.hpp>
#include <certsteward/domain/notification.hpp>
#include <certsteward/domain/oidc_settings.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/session.hpp>
#include <certsteward/domain/user.hpp>
#include <certsteward/domain/zone.hpp>

namespace certsteward::adapters::codec {

// Defined for: Certificate, Job, Project, User, AcmeAccount, DnsCredential, Zone, Credential,
// ModuleConfig, Distribution, NotificationChannel, NotificationRule, NotificationDelivery,
// NotificationState, AuditEntry, License, IdempotencyRecord, LdapSettings,
// OidcSettings, CaProviderList.
template <class T>
std::string encode(const T& entity);

// internal ("stored document is corrupt") when the text is not a document of T.
template <class T>
domain::Result<T> decode(std::string_view json);

}  // namespace certsteward::adapters::codec
