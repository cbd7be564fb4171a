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

#include "domain/id.hpp"
#include "domain/stop_signal.hpp"
#include "ports/background.hpp"
#include "ports/clock.hpp"
#include "ports/dns_credential_repository.hpp"
#include "ports/dns_provider.hpp"
#include "ports/dns_provider_factory.hpp"
#include "ports/secret_box.hpp"
#include "ports/zone_repository.hpp"

namespace certsteward::domain {

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
  ZoneRoutedDns(Ports p, Id project, const StopSignal& stop)
      : p_(p), project_(std::move(project)), stop_(stop) {}

  Status present(const ports::TxtRecord& record) override;
  Status cleanup(const ports::TxtRecord& record) override;
  Status waitVisible(const ports::TxtRecord& record, Duration timeout) override;
  // The removals that failed, with why.
  const std::vector<std::pair<ports::TxtRecord, std::string>>& failedCleanups() const {
    return failedCleanups_;
  }

 private:
  template <class F>
  Status withZone(const ports::TxtRecord& record, F call);
  Result<ports::DnsProvider*> providerFor(const Id& credentialId);

  Ports p_;
  Id project_;
  const StopSignal& stop_;
  std::map<Id, ports::DnsProviderPtr> providers_;
  std::vector<std::pair<ports::TxtRecord, std::string>> failedCleanups_;
};

}  // namespace certsteward::domain
