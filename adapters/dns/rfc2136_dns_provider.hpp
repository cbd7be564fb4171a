// Rfc2136DnsProvider: DNS-01 TXT records through RFC 2136 dynamic updates signed with TSIG
// (RFC 8945; hmac-sha256 or hmac-sha512), via ldns. Works with any primary that accepts
// TSIG-signed updates: bind9, Knot, PowerDNS, Windows DNS. Visibility is checked by asking the
// zone's authoritative servers directly (no recursion, no caches). Thread-safe: every call
// uses its own resolver.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/ports/dns_provider.hpp>

namespace certsteward::adapters::dns {

// Finds a zone's authoritative servers ("host:port" each, the zone given as "example.com." or
// without the dot) when none are configured: its NS records through the operator's resolvers.
using FindAuthoritative =
    std::function<domain::Result<std::vector<std::string>>(const std::string& zone)>;

struct Rfc2136Settings {
  std::string server;                       // "host" or "host:port" of the primary (port 53)
  std::string key_name;                     // the TSIG key's name
  std::string algorithm = "hmac-sha256";    // or "hmac-sha512"
  std::string secret;                       // the TSIG secret, base64
  std::chrono::milliseconds timeout{5000};  // per request
  // Where waitVisible() looks ("host[:port]"); empty: the primary only, or without one, what
  // `find_authoritative` finds for the record's zone.
  std::vector<std::string> authoritative;
  FindAuthoritative find_authoritative = {};
  // With no `authoritative` list: also every server `find_authoritative` finds for the zone (its
  // NS records), so that secondaries are waited for. Opt-in: where only the primary is reachable
  // (the outbound policy, the network, another view of the zone) they would never answer.
  bool check_name_servers = false;
  std::chrono::milliseconds poll_interval{250};
  // The policy every server address must pass (network.outbound_allow); none: no policy (an
  // embedder's own choice; the packaged server always sets it).
  std::shared_ptr<const common::Outbound> outbound = nullptr;
};

class Rfc2136DnsProvider : public ports::DnsProvider {
 public:
  explicit Rfc2136DnsProvider(Rfc2136Settings settings);

  // A provider used only for waitVisible(): it asks `servers` ("host[:port]", the first as its
  // primary) whether a record is visible, or when there are none, the servers `find` finds for
  // the record's zone. For providers that publish another way (exec, APIs).
  static std::unique_ptr<Rfc2136DnsProvider> visibilityChecker(
      const std::vector<std::string>& servers, std::chrono::milliseconds timeout,
      std::chrono::milliseconds pollInterval, std::shared_ptr<const common::Outbound> outbound,
      FindAuthoritative find = {});

  domain::Status present(const ports::TxtRecord& record) override;
  domain::Status cleanup(const ports::TxtRecord& record) override;
  domain::Status waitVisible(const ports::TxtRecord& record, domain::Duration timeout) override;

  // The TXT values `name` has on `server` ("host[:port]") right now, asked without recursion.
  // unavailable when the server does not answer.
  domain::Result<std::vector<std::string>> lookupTxt(const std::string& server,
                                                     const std::string& name) const;

  // invalid_argument naming the setting when something required is missing or malformed.
  static domain::Status validate(const Rfc2136Settings& settings);

 private:
  domain::Status update(const ports::TxtRecord& record, bool add);
  // The servers to ask about `zone`'s records: configured, or found once per zone (an order
  // asks again every slice of its wait).
  domain::Result<std::vector<std::string>> serversFor(const std::string& zone);
  Rfc2136Settings settings_;
  std::mutex foundMutex_;
  std::map<std::string, std::vector<std::string>> found_;  // zone -> servers found
};

}  // namespace certsteward::adapters::dns
