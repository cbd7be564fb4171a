// Running the operator's DNS hook.
#include <certsteward/adapters/dns/exec_dns_provider.hpp>

#include <thread>

#include <certsteward/adapters/common/command_runner.hpp>
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>

namespace certsteward::adapters::dns {

using domain::ErrorCode;
using domain::makeError;

ExecDnsProvider::ExecDnsProvider(ExecSettings settings) : settings_(std::move(settings)) {
  if (!settings_.check_servers.empty()) {
    checker_ =
        Rfc2136DnsProvider::visibilityChecker(settings_.check_servers, settings_.request_timeout,
                                              settings_.poll_interval, settings_.outbound);
  }
}

ExecDnsProvider::~ExecDnsProvider() = default;

domain::Status ExecDnsProvider::present(const ports::TxtRecord& record) {
  return run("present", record);
}

domain::Status ExecDnsProvider::cleanup(const ports::TxtRecord& record) {
  return run("cleanup", record);
}

domain::Status ExecDnsProvider::waitVisible(const ports::TxtRecord& record,
                                            domain::Duration timeout) {
  if (checker_) return checker_->waitVisible(record, timeout);
  std::this_thread::sleep_for(std::min<domain::Duration>(settings_.propagation_delay, timeout));
  return {};
}

domain::Status ExecDnsProvider::run(const char* action, const ports::TxtRecord& record) {
  common::Command command;
  command.path = settings_.command;
  command.args = {action, record.name, record.value};
  command.env = {"CERTSTEWARD_DNS_ZONE=" + record.zone,
                 "CERTSTEWARD_DNS_TTL=" + std::to_string(record.ttl_seconds)};
  if (!settings_.secret.empty())
    command.env.push_back("CERTSTEWARD_DNS_SECRET=" + settings_.secret);
  command.timeout = settings_.timeout;
  command.secret = settings_.secret;
  command.what = "the DNS hook " + settings_.command + " " + action;
  return common::runCommand(command);
}

}  // namespace certsteward::adapters::dns
