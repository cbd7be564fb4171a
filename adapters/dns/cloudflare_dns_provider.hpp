// CloudflareDnsProvider: DNS-01 TXT records through Cloudflare's API v4 with a scoped API token
// (`Authorization: Bearer`). The zone is found by name (`GET /zones?name=`, every page of the
// answer), or given by its id; a value is added with `POST /zones/<id>/dns_records` and removed
// by deleting the records that hold it (`DELETE .../dns_records/<record id>`), so the other TXT
// values of the name (a wildcard and its apex share `_acme-challenge`) stay. A 429 is waited out
// (its Retry-After, at most 10 s, at most `max_retries` times). Visibility is checked by asking
// the zone's name servers (as the API lists them) or `check_servers` directly. The calls go
// through the HTTP client's rules (https, or http to a loopback host; the outbound policy).
// Thread-safe: changes to one name are made one at a time within this process.
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

struct CloudflareSettings {
  static constexpr const char* kApiUrl = "https://api.cloudflare.com/client/v4";
  std::string api_url = kApiUrl;                // the API's base, up to /client/v4
  std::string api_token = {};                   // the secret: sent as a bearer token only
  std::string zone_id = {};                     // optional: 32 hex digits; else found by name
  std::vector<std::string> check_servers = {};  // optional: else the zone's name servers
  std::string ca_pem = {};                      // trusted instead of the system's CAs when set
  std::chrono::milliseconds timeout{5000};      // per request
  std::chrono::milliseconds poll_interval{250};
  int per_page = 100;   // records asked per page (the API takes 5 and more)
  int max_retries = 3;  // rate-limited answers (429) waited out before giving up
  std::shared_ptr<const common::Outbound> outbound = nullptr;
};

class CloudflareDnsProvider : public ports::DnsProvider {
 public:
  explicit CloudflareDnsProvider(CloudflareSettings settings);
  ~CloudflareDnsProvider() override;

  // What a credential must give: the token (no spaces); an https API URL (http only to a
  // loopback host) without query or user; a zone id of 32 hex digits when one is given.
  static domain::Status validate(const CloudflareSettings& settings);

  domain::Status present(const ports::TxtRecord& record) override;
  domain::Status cleanup(const ports::TxtRecord& record) override;
  domain::Status waitVisible(const ports::TxtRecord& record, domain::Duration timeout) override;

 private:
  struct Zone {
    std::string id;
    std::vector<std::string> name_servers;
  };
  struct Record {
    std::string id;
    std::string value;  // unquoted
  };

  // One API call (`target` is the path and query after the base), 429s waited out.
  domain::Result<JsonAnswer> call(std::string_view method, const std::string& target,
                                  const std::string& body = {});
  domain::Result<Zone> zoneOf(const std::string& zone);
  domain::Result<std::vector<Record>> txtRecords(const Zone& zone, const std::string& name);

  CloudflareSettings settings_;
  std::mutex mutex_;  // guards zones_ and checkers_
  std::map<std::string, Zone> zones_;
  std::map<std::string, std::shared_ptr<Rfc2136DnsProvider>> checkers_;
};

}  // namespace certsteward::adapters::dns
