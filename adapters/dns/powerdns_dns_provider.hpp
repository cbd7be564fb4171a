// PowerDnsProvider: DNS-01 TXT records through the PowerDNS Authoritative HTTP API
// (`/api/v1/servers/<server_id>/zones/<zone>`, `X-API-Key`). A value is added or removed by an
// RRset PATCH with changetype REPLACE that keeps the other TXT values of the name (a wildcard and
// its apex share `_acme-challenge`), and the last one removed with changetype DELETE. The calls
// go through the HTTP client's rules (https, or http to a loopback host; the outbound policy).
// Visibility is checked by asking the zone's authoritative servers directly, as for RFC 2136.
// Thread-safe: changes to one name are made one at a time within this process.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>
#include <certsteward/ports/dns_provider.hpp>

namespace certsteward::adapters::dns {

class Rfc2136DnsProvider;

struct PowerDnsSettings {
  std::string api_url;                      // "https://pdns.example.net:8081" (no path)
  std::string server_id = "localhost";      // the API's server id
  std::string api_key;                      // the secret: sent as X-API-Key only
  std::string ca_pem;                       // trusted instead of the system's CAs when set
  std::vector<std::string> check_servers;   // "host[:port]" asked for visibility
  FindAuthoritative find_authoritative;     // when check_servers is empty: the zone's NS
  std::chrono::milliseconds timeout{5000};  // per request
  std::chrono::milliseconds poll_interval{250};
  std::shared_ptr<const common::Outbound> outbound = nullptr;
};

class PowerDnsProvider : public ports::DnsProvider {
 public:
  explicit PowerDnsProvider(PowerDnsSettings settings);
  ~PowerDnsProvider() override;

  // What a credential must give: an http(s) URL without path, query or credentials; a server id
  // of letters, digits, '.', '-' and '_'; the API key; at least one server to check.
  static domain::Status validate(const PowerDnsSettings& settings);

  domain::Status present(const ports::TxtRecord& record) override;
  domain::Status cleanup(const ports::TxtRecord& record) override;
  domain::Status waitVisible(const ports::TxtRecord& record, domain::Duration timeout) override;

 private:
  // The TXT values `name` holds in `zone` now, as the API stores them (quoted).
  domain::Result<std::vector<std::string>> values(const std::string& zone, const std::string& name);
  // Sets the TXT RRset of `name` to `values` (DELETE when empty).
  domain::Status replace(const ports::TxtRecord& record, const std::vector<std::string>& values);
  std::string zoneUrl(const std::string& zone) const;

  PowerDnsSettings settings_;
  std::unique_ptr<Rfc2136DnsProvider> checker_;
};

}  // namespace certsteward::adapters::dns
