// The rules between configuration resources: a zone names an active DNS credential of its
// project; a notification rule names channels of its project; a DNS credential in use by a zone
// cannot be deleted.
#pragma once

#include <string>
#include <vector>

#include "domain/notification.hpp"
#include "domain/result.hpp"
#include "domain/zone.hpp"
#include "ports/dns_credential_repository.hpp"
#include "ports/notification_channel_repository.hpp"
#include "ports/zone_repository.hpp"

namespace certsteward::domain {

// invalid_argument (422) naming the field.
Status checkZone(const Zone& zone, const ports::DnsCredentialRepository& credentials);
Status checkNotificationRule(const NotificationRule& rule,
                             const ports::NotificationChannelRepository& channels);
// "zone <id>" for every zone of the project that uses the credential.
Result<std::vector<std::string>> zonesUsing(const DnsCredential& credential,
                                            const ports::ZoneRepository& zones);

}  // namespace certsteward::domain
