// The DnsProviderFactory of this build: "rfc2136" (settings: server, key_name, algorithm;
// secret: the TSIG secret). Timeouts come from the configuration.
#pragma once

#include <chrono>

#include "ports/dns_provider_factory.hpp"

namespace certsteward::adapters::dns {

struct DnsTimeouts {
  std::chrono::milliseconds request{5000};
  std::chrono::milliseconds poll_interval{500};
};

class DefaultDnsProviderFactory : public ports::DnsProviderFactory {
 public:
  explicit DefaultDnsProviderFactory(DnsTimeouts timeouts = {}) : timeouts_(timeouts) {}
  domain::Result<ports::DnsProviderPtr> make(const domain::DnsCredential& credential,
                                             const std::string& secret) override;

 private:
  DnsTimeouts timeouts_;
};

}  // namespace certsteward::adapters::dns
