// ResolverDnsLookup: DnsLookup through the resolvers the operator configured (`dns.resolvers`,
// host[:port] each), or those of /etc/resolv.conf when none is. Each is asked in turn, with
// recursion desired, until one answers (NOERROR or NXDOMAIN); a resolver that fails, refuses or
// stays silent past `timeout` hands over to the next. Thread-safe (a resolver per lookup).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <certsteward/ports/dns_lookup.hpp>

namespace certsteward::adapters::dns {

struct DnsLookupSettings {
  std::vector<std::string> resolvers;       // empty: the system's (/etc/resolv.conf)
  std::chrono::milliseconds timeout{2000};  // per resolver
  std::string resolv_conf = "/etc/resolv.conf";
};

class ResolverDnsLookup : public ports::DnsLookup {
 public:
  explicit ResolverDnsLookup(DnsLookupSettings settings);

  domain::Result<std::optional<std::string>> cnameOf(const std::string& name) override;
  domain::Result<std::vector<domain::CaaRecord>> caaOf(const std::string& name) override;

  // The authoritative servers of `zone` ("example.com", a trailing dot allowed): its NS records
  // and their addresses (A, then AAAA), as "address:port" (IPv6 bracketed), at most 8, in the
  // order given. unavailable when no resolver answers; an empty list when the zone has no NS.
  domain::Result<std::vector<std::string>> authoritativeServers(const std::string& zone,
                                                                std::uint16_t port = 53);

  // The resolvers asked, in order (for messages and tests).
  const std::vector<std::string>& resolvers() const { return resolvers_; }

 private:
  DnsLookupSettings settings_;
  std::vector<std::string> resolvers_;
};

}  // namespace certsteward::adapters::dns
