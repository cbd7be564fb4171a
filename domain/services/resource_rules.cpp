// Cross-resource rules.
#include "domain/services/resource_rules.hpp"

#include "domain/certificate.hpp"

namespace certsteward::domain {

Status checkZone(const Zone& z, const ports::DnsCredentialRepository& credentials) {
  if (!isValidDnsName(z.domain) || z.domain.starts_with("*.")) {
    return makeError(ErrorCode::invalid_argument,
                     "domain must be a lower-case DNS name such as example.com");
  }
  auto credential = credentials.get(z.project_id, z.dns_credential_id);
  if (!credential || !credential->active) {
    return makeError(ErrorCode::invalid_argument,
                     "dns_credential_id must name an active DNS credential of this project");
  }
  return {};
}

Status checkNotificationRule(const NotificationRule& r,
                             const ports::NotificationChannelRepository& channels) {
  for (const auto& id : r.channel_ids) {
    if (!channels.get(r.project_id, id)) {
      return makeError(ErrorCode::invalid_argument,
                       "channel_ids must name notification channels of this project");
    }
  }
  return {};
}

Result<std::vector<std::string>> zonesUsing(const DnsCredential& d,
                                            const ports::ZoneRepository& zones) {
  std::vector<std::string> refs;
  for (std::int64_t page = 1; page <= 10000; ++page) {  // bounded
    auto zonesPage = zones.list(d.project_id, *makePageRequest(page, 100));
    if (!zonesPage) return zonesPage.error();
    for (const auto& z : zonesPage->items) {
      if (z.dns_credential_id == d.id) refs.push_back("zone " + z.id);
    }
    if (page * 100 >= zonesPage->total) break;
  }
  return refs;
}

}  // namespace certsteward::domain
