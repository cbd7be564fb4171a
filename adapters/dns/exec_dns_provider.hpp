// ExecDnsProvider: DNS-01 records through a command the server's operator allows
// (`dns.exec_commands`), for DNS services no built-in provider speaks. It runs
//   <command> present|cleanup <fqdn> <value>
// with a minimal environment: PATH, CERTSTEWARD_DNS_ZONE, CERTSTEWARD_DNS_TTL and, when the
// credential has one, its secret in CERTSTEWARD_DNS_SECRET (never on the command line, where
// other local users could read it). Exit status 0 is success; anything else, or running past
// the timeout (the whole process group is killed), fails with the command's last output line,
// the secret masked. Visibility is checked on `check_servers` (host[:port], asked without
// recursion) or, without them, by waiting `propagation_delay`. Thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/ports/dns_provider.hpp>

namespace certsteward::adapters::dns {

class Rfc2136DnsProvider;

struct ExecSettings {
  std::string command;  // an absolute path from dns.exec_commands
  std::string secret;   // the credential's secret, may be empty
  std::chrono::milliseconds timeout{60000};
  std::vector<std::string> check_servers;
  std::chrono::milliseconds propagation_delay{0};
  std::chrono::milliseconds request_timeout{5000};  // of one visibility query
  std::chrono::milliseconds poll_interval{250};
  std::shared_ptr<const common::Outbound> outbound = nullptr;  // for the check_servers
};

class ExecDnsProvider : public ports::DnsProvider {
 public:
  explicit ExecDnsProvider(ExecSettings settings);
  ~ExecDnsProvider() override;

  domain::Status present(const ports::TxtRecord& record) override;
  domain::Status cleanup(const ports::TxtRecord& record) override;
  domain::Status waitVisible(const ports::TxtRecord& record, domain::Duration timeout) override;

 private:
  domain::Status run(const char* action, const ports::TxtRecord& record);

  ExecSettings settings_;
  std::unique_ptr<Rfc2136DnsProvider> checker_;  // only its visibility check is used
};

}  // namespace certsteward::adapters::dns
