// The DnsProviderFactory of this build: "rfc2136" (settings: server, key_name, algorithm,
// authoritative; secret: the TSIG secret), "powerdns" (settings: api_url, server_id,
// check_servers; secret: the API key) and "exec" (settings: command — one of the server's
// dns.exec_commands —, check_servers, propagation_delay; secret: handed to the command in its
// environment). Timeouts and the allowed commands come from the configuration.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/ports/dns_provider_factory.hpp>

namespace certsteward::adapters::dns {

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
  explicit DefaultDnsProviderFactory(DnsTimeouts timeouts = {},
                                     std::vector<std::string> execCommands = {},
                                     std::shared_ptr<const common::Outbound> outbound = nullptr)
      : timeouts_(timeouts),
        execCommands_(std::move(execCommands)),
        outbound_(std::move(outbound)) {}
  domain::Result<ports::DnsProviderPtr> make(const domain::DnsCredential& credential,
                                             const std::string& secret) override;
  std::vector<ports::DnsProviderKind> kinds() const override;

 private:
  DnsTimeouts timeouts_;
  std::vector<std::string> execCommands_;
  std::shared_ptr<const common::Outbound> outbound_;
};

}  // namespace certsteward::adapters::dns
