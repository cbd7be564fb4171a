// DnsAccountRegistration: an account made on a DNS provider's own server (acme-dns) and kept as a
// DNS credential of the project, with the zone for the one name the account answers for — so a
// name whose `_acme-challenge` is a CNAME to that name is served through it. The account is made
// first (over the network, outside any transaction), then the credential and the zone are saved
// as POST .../dns-credentials and POST .../zones would save them (same checks, audited); when the
// zone cannot be saved, the credential is removed again and the error returned. Project admins.
#pragma once

#include <map>
#include <string>

#include <certsteward/domain/dns_credential.hpp>
#include <certsteward/domain/zone.hpp>
#include <certsteward/ports/dns_provider_factory.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/configuration_services.hpp>

namespace certsteward::services {

struct RegisteredDnsAccount {
  domain::DnsCredential credential;
  domain::Zone zone;  // its domain: the name every delegating CNAME points at
};

class DnsAccountRegistration {
 public:
  DnsAccountRegistration(ports::DnsProviderFactory& providers, ConfigurationServices& config,
                         const AccessControl& access)
      : providers_(providers), config_(config), access_(access) {}

  // `draft`: the credential's name, provider ("acmedns") and the settings the provider needs to
  // reach its server (api_url, check_servers). forbidden below project admin (before anything
  // leaves this server); invalid_argument for a bad name or settings; what the server answered
  // when it made no account.
  domain::Result<RegisteredDnsAccount> registerAccount(const Principal& who,
                                                       const RequestContext& ctx,
                                                       const domain::Id& projectId,
                                                       domain::DnsCredential draft);

 private:
  ports::DnsProviderFactory& providers_;
  ConfigurationServices& config_;
  const AccessControl& access_;
};

}  // namespace certsteward::services
