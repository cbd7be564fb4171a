// The DnsProviderFactory of this build: each provider of the catalog's DNS kinds
// (domain/catalog.cpp says which settings each takes, and what its secret is), made from a DNS
// credential with its opened secret; acme-dns accounts registered. Timeouts, the allowed exec
// commands and the outbound policy come from the configuration.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>
#include <certsteward/ports/dns_provider_factory.hpp>

namespace certsteward::adapters::dns {

struct AcmeDnsSettings;  // acmedns_dns_provider.hpp

struct DnsTimeouts {
  std::chrono::milliseconds request{5000};
  std::chrono::milliseconds poll_interval{500};
  std::chrono::milliseconds exec{60000};  // one run of an exec hook
};

class DefaultDnsProviderFactory : public ports::DnsProviderFactory {
 public:
  // `execCommands`: the absolute paths credentials may name as their exec command; empty
  // disables the exec provider.
  // `outbound`: the policy the DNS servers a credential names must pass (network.outbound_allow;
  // none: no policy).
  // `findAuthoritative`: a zone's authoritative servers from its NS records, for providers whose
  // credential names no check_servers (none: those providers need them).
  explicit DefaultDnsProviderFactory(DnsTimeouts timeouts = {},
                                     std::vector<std::string> execCommands = {},
                                     std::shared_ptr<const common::Outbound> outbound = nullptr,
                                     FindAuthoritative findAuthoritative = {})
      : timeouts_(timeouts),
        execCommands_(std::move(execCommands)),
        outbound_(std::move(outbound)),
        findAuthoritative_(std::move(findAuthoritative)) {}
  domain::Result<ports::DnsProviderPtr> make(const domain::DnsCredential& credential,
                                             const std::string& secret) override;
  std::vector<ports::DnsProviderKind> kinds() const override;
  domain::Result<ports::RegisteredDnsAccount> registerAccount(
      const domain::DnsCredential& credential) override;

 private:
  // The settings every acme-dns call needs (api_url, check_servers, timeouts, the policy).
  AcmeDnsSettings acmeDnsSettings(const domain::DnsCredential& credential) const;
  template <class Settings>
  Settings withRuntime(const domain::DnsCredential& credential, Settings s,
                       const char* checkKey) const;

  DnsTimeouts timeouts_;
  std::vector<std::string> execCommands_;
  std::shared_ptr<const common::Outbound> outbound_;
  FindAuthoritative findAuthoritative_;
};

}  // namespace certsteward::adapters::dns
