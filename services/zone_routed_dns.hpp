// ZoneRoutedDns: the DnsProvider an issuance (or a clean-up) talks to for one project. A TXT
// record goes to the zone of the project that covers its name (the longest match), through that
// zone's DNS credential (opened with the SecretBox, the provider made once per credential). A
// removal that fails is remembered (failedCleanups) so the caller can queue a cleanup_dns job;
// waits are sliced so a stop request is seen within about a second. Not thread-safe: one per
// attempt.
#pragma once

#include <map>
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
  };
  ZoneRoutedDns(Ports p, domain::Id project, const domain::StopSignal& stop)
      : p_(p), project_(std::move(project)), stop_(stop) {}

  domain::Status present(const ports::TxtRecord& record) override;
  domain::Status cleanup(const ports::TxtRecord& record) override;
  domain::Status waitVisible(const ports::TxtRecord& record, domain::Duration timeout) override;
  // The removals that failed, with why.
  const std::vector<std::pair<ports::TxtRecord, std::string>>& failedCleanups() const {
    return failedCleanups_;
  }

 private:
  template <class F>
  domain::Status withZone(const ports::TxtRecord& record, F call);
  domain::Result<ports::DnsProvider*> providerFor(const domain::Id& credentialId);

  Ports p_;
  domain::Id project_;
  const domain::StopSignal& stop_;
  std::map<domain::Id, ports::DnsProviderPtr> providers_;
  std::vector<std::pair<ports::TxtRecord, std::string>> failedCleanups_;
};

}  // namespace certsteward::services
