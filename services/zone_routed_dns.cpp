// Routing DNS-01 records to the project's zones.
#include <certsteward/services/zone_routed_dns.hpp>

#include <algorithm>
#include <charconv>

namespace certsteward::services {

domain::Status ZoneRoutedDns::present(const ports::TxtRecord& record) {
  auto added = withZone(
      record, [](ports::DnsProvider& d, const ports::TxtRecord& r, auto) { return d.present(r); });
  // An add that broke off may have written the record (the API took it, then its publication
  // or our connection failed): it is removed later like any record left behind.
  if (!added && added.error().code == domain::ErrorCode::unavailable) {
    if (auto where = routed(record)) {
      failedCleanups_.emplace_back(*where, "its add broke off: " + added.error().message);
    }
  }
  return added;
}

domain::Status ZoneRoutedDns::cleanup(const ports::TxtRecord& record) {
  auto where = routed(record);
  if (!where) {
    failedCleanups_.emplace_back(record, where.error().message);
    return where.error();
  }
  auto removed = withZone(
      record, [](ports::DnsProvider& d, const ports::TxtRecord& r, auto) { return d.cleanup(r); });
  if (!removed) failedCleanups_.emplace_back(*where, removed.error().message);
  return removed;
}

// Waited for in slices of at most a second, so a stop request is seen promptly.
domain::Status ZoneRoutedDns::waitVisible(const ports::TxtRecord& record,
                                          domain::Duration timeout) {
  // The credential's own propagation_timeout, when it has one, replaces the caller's.
  return withZone(record, [this, timeout](ports::DnsProvider& d, const ports::TxtRecord& r,
                                          std::optional<domain::Duration> own) {
    const auto deadline = p_.clock.now() + own.value_or(timeout);
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

domain::Result<ports::TxtRecord> ZoneRoutedDns::routed(const ports::TxtRecord& record) {
  auto it = routes_.find(record.name);
  if (it == routes_.end()) {
    auto route = router_.routeRecord(project_, record.name);
    if (!route) return route.error();
    it = routes_.emplace(record.name, std::move(*route)).first;
  }
  ports::TxtRecord out = record;
  out.zone = it->second.zone.domain + ".";
  out.name = it->second.record_name + ".";
  return out;
}

template <class F>
domain::Status ZoneRoutedDns::withZone(const ports::TxtRecord& record, F call) {
  auto where = routed(record);
  if (!where) return where.error();
  const auto& credentialId = routes_.at(record.name).zone.dns_credential_id;
  auto provider = providerFor(credentialId);
  if (!provider) return provider.error();
  return call(**provider, *where, ownTimeouts_.at(credentialId));
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
  std::optional<domain::Duration> own;
  if (const auto it = credential->settings.find("propagation_timeout");
      it != credential->settings.end() && !it->second.empty()) {
    int seconds = 0;
    const auto [end, ec] =
        std::from_chars(it->second.data(), it->second.data() + it->second.size(), seconds);
    if (ec == std::errc{} && end == it->second.data() + it->second.size() && seconds > 0) {
      own = std::chrono::seconds{seconds};
    }
  }
  ownTimeouts_[credentialId] = own;
  auto* raw = provider->get();
  providers_.emplace(credentialId, std::move(*provider));
  return raw;
}

}  // namespace certsteward::services
