// DigitalOceanDnsProvider: DNS-01 TXT records through DigitalOcean's API v2 (Domains, Domain
// Records) with a personal access token (`Authorization: Bearer`, read and write on domains).
// The zone is the DigitalOcean domain; a value is added with `POST /v2/domains/<zone>/records`
// and removed by deleting the records that hold it, so the name's other TXT values stay; every
// page of a listing is read (`links.pages.next`). A 429 is waited out (its Retry-After, else 1, 2,
// 4 s; at most 10 s at a time). Visibility is asked of DigitalOcean's name servers
// (ns1..ns3.digitalocean.com) or `check_servers`. Calls go through the HTTP client's rules (https,
// or http to a loopback host; the outbound policy). Thread-safe: changes to one name are made one
// at a time within this process.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/ports/dns_provider.hpp>

namespace certsteward::adapters::dns {

class Rfc2136DnsProvider;
struct JsonAnswer;  // json_api.hpp

struct DigitalOceanSettings {
  static constexpr const char* kApiUrl = "https://api.digitalocean.com/v2";
  std::string api_url = kApiUrl;  // the API's base, up to /v2
  std::string api_token = {};     // the secret: sent as a bearer token only
  // Asked for visibility; default DigitalOcean's own name servers.
  std::vector<std::string> check_servers = {"ns1.digitalocean.com", "ns2.digitalocean.com",
                                            "ns3.digitalocean.com"};
  std::string ca_pem = {};                  // trusted instead of the system's CAs when set
  std::chrono::milliseconds timeout{5000};  // per request
  std::chrono::milliseconds poll_interval{250};
  int per_page = 200;   // records asked per page (the API takes up to 200)
  int max_retries = 3;  // rate-limited answers (429) waited out before giving up
  std::shared_ptr<const common::Outbound> outbound = nullptr;
};

class DigitalOceanDnsProvider : public ports::DnsProvider {
 public:
  explicit DigitalOceanDnsProvider(DigitalOceanSettings settings);
  ~DigitalOceanDnsProvider() override;

  // What a credential must give: the token (no spaces); an https API URL (http only to a
  // loopback host) without query or user; at least one server to check.
  static domain::Status validate(const DigitalOceanSettings& settings);

  domain::Status present(const ports::TxtRecord& record) override;
  domain::Status cleanup(const ports::TxtRecord& record) override;
  domain::Status waitVisible(const ports::TxtRecord& record, domain::Duration timeout) override;

 private:
  struct Record {
    std::string id;
    std::string value;
  };
  domain::Result<JsonAnswer> call(std::string_view method, const std::string& target,
                                  const std::string& body = {});
  domain::Result<std::vector<Record>> txtRecords(const std::string& zone, const std::string& name);

  DigitalOceanSettings settings_;
  std::unique_ptr<Rfc2136DnsProvider> checker_;
};

}  // namespace certsteward::adapters::dns
