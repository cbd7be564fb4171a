// HetznerDnsProvider: DNS-01 TXT records through Hetzner DNS as the Hetzner Cloud API serves it
// (api.hetzner.cloud/v1: Zones, Zone RRSets and their Actions; not the retired dns.hetzner.com
// API) with a Cloud project's API token (`Authorization: Bearer`, Read & Write). The zone is
// found by name (`GET /zones?name=`, every page of the answer), or given by its id; a value is
// added with the RRSet action `add_records` and removed with `remove_records`, so the name's other
// TXT values (a wildcard and its apex share `_acme-challenge`) stay; the name's values are read
// first, so a value already there is not written again and an absent one is not removed. Each
// write answers an Action, polled until it succeeds (bounded). A 429 (Hetzner sends no
// Retry-After) is waited out 1, 2, 4 s. Visibility is checked by asking the zone's authoritative
// name servers (as the API lists them) or `check_servers` directly. The calls go through the HTTP
// client's rules (https, or http to a loopback host; the outbound policy). Thread-safe: changes to
// one name are made one at a time within this process.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/ports/dns_provider.hpp>

namespace certsteward::adapters::dns {

class Rfc2136DnsProvider;
struct JsonAnswer;  // json_api.hpp

struct HetznerSettings {
  static constexpr const char* kApiUrl = "https://api.hetzner.cloud/v1";
  std::string api_url = kApiUrl;  // the API's base, up to /v1
  std::string api_token = {};     // the secret: sent as a bearer token only
  std::string zone_id = {};       // optional: the zone's numeric id; else found by name
  // Optional: asked for visibility; else the zone's authoritative name servers as the API lists
  // them.
  std::vector<std::string> check_servers = {};
  std::string ca_pem = {};                       // trusted instead of the system's CAs when set
  std::chrono::milliseconds timeout{5000};       // per request
  std::chrono::milliseconds poll_interval{250};  // Action and visibility polls
  int max_retries = 3;  // rate-limited answers (429) waited out before giving up
  std::shared_ptr<const common::Outbound> outbound = nullptr;
};

class HetznerDnsProvider : public ports::DnsProvider {
 public:
  explicit HetznerDnsProvider(HetznerSettings settings);
  ~HetznerDnsProvider() override;

  // What a credential must give: the token (no spaces); an https API URL (http only to a
  // loopback host) without query or user; a numeric zone id when one is given.
  static domain::Status validate(const HetznerSettings& settings);

  domain::Status present(const ports::TxtRecord& record) override;
  domain::Status cleanup(const ports::TxtRecord& record) override;
  domain::Status waitVisible(const ports::TxtRecord& record, domain::Duration timeout) override;

 private:
  struct Zone {
    std::string id;  // decimal (ids exceed 32 bits)
    std::string name;
    std::vector<std::string> name_servers;
  };

  // One API call (`target` is the path and query after the base), 429s waited out.
  domain::Result<JsonAnswer> call(std::string_view method, const std::string& target,
                                  const std::string& body = {});
  domain::Result<Zone> zoneOf(const std::string& zone);
  // The TXT values (unquoted) of the RRSet `rrName` (relative to the zone); none when absent.
  domain::Result<std::vector<std::string>> txtValues(const Zone& zone, const std::string& rrName);
  // POSTs the RRSet action `action` (add_records, remove_records) with `body` and waits for the
  // Action it starts to succeed. A 404 is absent's answer: `absentOk` says whether that is done.
  // `lock` (the name's) is let go once the action is taken, before it is waited for.
  domain::Status runAction(const Zone& zone, const std::string& rrName, std::string_view action,
                           const std::string& body, bool absentOk,
                           std::unique_lock<std::mutex>& lock);
  // Polls the Action in `started` (a write's answer) until it succeeds, fails or time runs out.
  domain::Status awaitAction(const JsonAnswer& started, const Zone& zone);

  HetznerSettings settings_;
  std::mutex mutex_;  // guards zones_ and checkers_
  std::map<std::string, Zone> zones_;
  std::map<std::string, std::shared_ptr<Rfc2136DnsProvider>> checkers_;
};

}  // namespace certsteward::adapters::dns
