// Entity <-> JSON text, shared by the SQLite adapter (stored as TEXT) and the MongoDB adapter
// (converted to BSON). Timestamps are integer milliseconds since the epoch, enums their wire
// names, optional fields null. Unknown keys are ignored and missing keys keep their defaults, so
// documents written by older or newer versions still read. Boost.JSON stays in the .cpp.
#pragma once

#include <string>
#include <string_view>

#include "domain/acme_account.hpp"
#include "domain/audit.hpp"
#include "domain/certificate.hpp"
#include "domain/credential.hpp"
#include "domain/distribution.hpp"
#include "domain/dns_credential.hpp"
#include "domain/job.hpp"
#include "domain/ldap_settings.hpp"
#include "domain/license.hpp"
#include "domain/module_config.hpp"
#include "domain/notification.hpp"
#include "domain/oidc_settings.hpp"
#include "domain/result.hpp"
#include "domain/session.hpp"
#include "domain/user.hpp"
#include "domain/zone.hpp"

namespace certsteward::adapters::codec {

// Defined for: Certificate, Job, Project, User, AcmeAccount, DnsCredential, Zone, Credential,
// ModuleConfig, Distribution, NotificationChannel, NotificationRule, NotificationDelivery,
// NotificationState, AuditEntry, License, IdempotencyRecord, LdapSettings,
// OidcSettings.
template <class T>
std::string encode(const T& entity);

// internal ("stored document is corrupt") when the text is not a document of T.
template <class T>
domain::Result<T> decode(std::string_view json);

}  // namespace certsteward::adapters::codec
