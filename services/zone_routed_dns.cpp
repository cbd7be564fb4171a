// Routing DNS-01 records to the project's zones.
#include <certsteward/services/zone_routed_dns.hpp>

#include <algorithm>

namespace certsteward::services {

domain::Status ZoneRoutedDns::present(const ports::TxtRecord& record) {
  return withZone(record,
                  [](ports::DnsProvider& d, const ports::TxtRecord& r) { return d.present(r); });
}

domain::Status ZoneRoutedDns::cleanup(const ports::TxtRecord& record) {
  auto removed = withZone(
      record, [](ports::DnsProvider& d, const ports::TxtRecord& r) { return d.cleanup(r); });
  if (!removed) failedCleanups_.emplace_back(record, removed.error().message);
  return removed;
}

// Waited for in slices of at most a second, so a stop request is seen promptly.
domain::Status ZoneRoutedDns::waitVisible(const ports::TxtRecord& record,
                                          domain::Duration timeout) {
  return withZone(record, [this, timeout](ports::DnsProvider& d, const ports::TxtRecord& r) {
    const auto deadline = p_.clock.now() + timeout;
    for (;;) {
      const auto sliceStart = p_.clock.now();
      const auto slice = std::clamp<domain::Duration>(
          deadline - sliceStart, domain::Duration::zero(), std::chrono::seconds{1});
      auto visible = d.waitVisible(r, slice);
      if (visible || p_.clock.now() >= deadline) return visible;
      // A provider that gave up early (its poll interval longer than the slice) is not asked
      // again before the slice is over: no busy loop against the DNS servers.
      while (!stop_.requested() && p_.clock.now() < std::min(sliceStart + slice, deadline)) {
        p_.background.pause(std::chrono::milliseconds{50});
      }
      if (stop_.requested()) {
        return domain::Status(makeError(domain::ErrorCode::unavailable,
                                        "stopped while waiting for " + r.name + " to be visible",
                                        "stopped"));
      }
    }
  });
}

template <class F>
domain::Status ZoneRoutedDns::withZone(const ports::TxtRecord& record, F call) {
  std::string name = record.name;
  if (!name.empty() && name.back() == '.') name.pop_back();
  auto zone = p_.zones.findForName(project_, name);
  if (!zone) return zone.error();
  if (!*zone) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "no zone of the project covers " + name + ": add one with its DNS credential");
  }
  auto provider = providerFor((*zone)->dns_credential_id);
  if (!provider) return provider.error();
  ports::TxtRecord routed = record;
  routed.zone = (*zone)->domain + ".";
  return call(**provider, routed);
}

domain::Result<ports::DnsProvider*> ZoneRoutedDns::providerFor(const domain::Id& credentialId) {
  if (auto it = providers_.find(credentialId); it != providers_.end()) return it->second.get();
  auto credential = p_.dnsCredentials.get(project_, credentialId);
  if (!credential) return credential.error();
  if (!credential->active) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "the DNS credential '" + credential->name + "' is not active");
  }
  std::string secret;
  if (!credential->secret_sealed.empty()) {
    auto opened = p_.secrets.open(credential->secret_sealed);
    if (!opened) return makeError(domain::ErrorCode::internal, "a DNS secret cannot be decrypted");
    secret = std::move(*opened);
  }
  auto provider = p_.dnsProviders.make(*credential, secret);
  if (!provider) return provider.error();
  auto* raw = provider->get();
  providers_.emplace(credentialId, std::move(*provider));
  return raw;
}

}  // namespace certsteward::services
