#include "adapters/dns/dns_provider_factory.hpp"

#include "adapters/dns/rfc2136_dns_provider.hpp"

namespace certsteward::adapters::dns {
namespace {

std::string setting(const domain::DnsCredential& c, const char* key, std::string fallback = {}) {
  const auto it = c.settings.find(key);
  return it == c.settings.end() || it->second.empty() ? fallback : it->second;
}

}  // namespace

domain::Result<ports::DnsProviderPtr> DefaultDnsProviderFactory::make(
    const domain::DnsCredential& credential, const std::string& secret) {
  if (credential.provider == "rfc2136") {
    Rfc2136Settings s;
    s.server = setting(credential, "server");
    s.key_name = setting(credential, "key_name");
    s.algorithm = setting(credential, "algorithm", "hmac-sha256");
    s.secret = secret;
    s.timeout = timeouts_.request;
    s.poll_interval = timeouts_.poll_interval;
    const auto authoritative = setting(credential, "authoritative");
    for (std::size_t at = 0; at < authoritative.size();) {
      const auto comma = authoritative.find(',', at);
      const auto item = authoritative.substr(at, comma - at);
      if (!item.empty()) s.authoritative.push_back(item);
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    if (auto ok = Rfc2136DnsProvider::validate(s); !ok) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "DNS credential '" + credential.name + "': " + ok.error().message);
    }
    return ports::DnsProviderPtr(std::make_unique<Rfc2136DnsProvider>(std::move(s)));
  }
  return domain::makeError(domain::ErrorCode::failed_precondition,
                           "DNS provider '" + credential.provider +
                               "' cannot be driven by this build yet (rfc2136 can)");
}

}  // namespace certsteward::adapters::dns
