// ZoneRoutedDns: the DnsProvider an issuance (or a clean-up) talks to for one project. A TXT
// record goes where ChallengeRouter sends it: to the name its CNAMEs delegate it to, if any, in
// the zone of the project that covers that name (the longest match), through that zone's DNS
// credential (opened with the SecretBox, the provider made once per credential), waiting for
// visibility as long as the credential's `propagation_timeout` says, else as the caller asks. A
// removal that fails is remembered (failedCleanups) so the caller can queue a cleanup_dns job;
// waits are sliced so a stop request is seen within about a second. Not thread-safe: one per
// attempt.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/stop_signal.hpp>
#include <certsteward/ports/background.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/dns_credential_repository.hpp>
#include <certsteward/ports/dns_provider.hpp>
#include <certsteward/ports/dns_provider_factory.hpp>
#include <certsteward/ports/secret_box.hpp>
#include <certsteward/ports/zone_repository.hpp>
#include <certsteward/services/challenge_routes.hpp>

namespace certsteward::services {

class ZoneRoutedDns : public ports::DnsProvider {
 public:
  struct Ports {
    ports::ZoneRepository& zones;
    ports::DnsCredentialRepository& dnsCredentials;
    ports::DnsProviderFactory& dnsProviders;
    const ports::SecretBox& secrets;
    const ports::Clock& clock;
    ports::Background& background;
    ports::DnsLookup* lookup = nullptr;  // none: CNAME delegations are not followed
  };
  ZoneRoutedDns(Ports p, domain::Id project, const domain::StopSignal& stop)
      : p_(p), project_(std::move(project)), stop_(stop), router_({p_.zones, p_.lookup}) {}

  domain::Status present(const ports::TxtRecord& record) override;
  domain::Status cleanup(const ports::TxtRecord& record) override;
  domain::Status waitVisible(const ports::TxtRecord& record, domain::Duration timeout) override;
  // Where each record name went, once routed (for the job log).
  const std::map<std::string, ChallengeRoute>& routes() const { return routes_; }
  // The removals that failed, and the adds that broke off (unavailable: they may have written
  // the record), with why, each as routed (at its delegated name, if any).
  const std::vector<std::pair<ports::TxtRecord, std::string>>& failedCleanups() const {
    return failedCleanups_;
  }

 private:
  template <class F>
  domain::Status withZone(const ports::TxtRecord& record, F call);
  domain::Result<ports::DnsProvider*> providerFor(const domain::Id& credentialId);
  domain::Result<ports::TxtRecord> routed(const ports::TxtRecord& record);

  Ports p_;
  domain::Id project_;
  const domain::StopSignal& stop_;
  std::map<domain::Id, ports::DnsProviderPtr> providers_;
  ChallengeRouter router_;                        // its lookups kept for the attempt
  std::map<std::string, ChallengeRoute> routes_;  // by record name
  // Each credential's propagation_timeout setting, when it has one.
  std::map<domain::Id, std::optional<domain::Duration>> ownTimeouts_;
  std::vector<std::pair<ports::TxtRecord, std::string>> failedCleanups_;
};

}  // namespace certsteward::services
