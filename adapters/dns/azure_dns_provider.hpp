// AzureDnsProvider: DNS-01 TXT records in an Azure DNS zone through Azure Resource Manager (the
// record sets API, api-version 2018-05-01), signed in as a service principal: an app registration's
// client id and client secret exchanged for an access token with the OAuth2 client-credentials
// grant at Microsoft Entra ID (`<authority>/<tenant>/oauth2/v2.0/token`, scope ARM's `.default`).
// The token is kept until a minute before it expires, and renewed once when ARM answers 401. A
// name's TXT values live in one record set: a value is added or removed by reading the set and
// writing it back whole with the other values kept (a wildcard and its apex share
// `_acme-challenge`), conditional on the set's etag (`If-Match`; `If-None-Match: *` when it is
// created), read again and retried a few times when another writer got there first (412); the set
// is deleted when its last value goes. A 429 is waited out as its Retry-After says. Visibility is
// checked by asking the zone's name servers (as ARM lists them) or `check_servers` directly. The
// calls go through the HTTP client's rules (https, or http to a loopback host; the outbound
// policy). Thread-safe: changes to one name are made one at a time within this process.
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

struct AzureSettings {
  static constexpr const char* kAuthorityUrl = "https://login.microsoftonline.com";
  static constexpr const char* kArmUrl = "https://management.azure.com";
  std::string authority_url = kAuthorityUrl;  // Microsoft Entra ID's sign-in base
  std::string arm_url = kArmUrl;              // Azure Resource Manager's base
  std::string tenant_id = {};                 // the Directory (tenant) ID: a GUID
  std::string client_id = {};                 // the app registration's Application (client) ID
  std::string client_secret = {};             // the secret: the client secret's value
  std::string subscription_id = {};           // the subscription of the zone: a GUID
  std::string resource_group = {};            // the zone's resource group
  // Optional: the Azure DNS zone's name when it differs from the project zone passed in
  // TxtRecord::zone (the record's name must be in it); usually empty.
  std::string zone_name = {};
  // Optional: asked for visibility; else the zone's name servers as ARM lists them.
  std::vector<std::string> check_servers = {};
  std::string ca_pem = {};                  // trusted instead of the system's CAs when set
  std::chrono::milliseconds timeout{5000};  // per request
  std::chrono::milliseconds poll_interval{250};
  int max_retries = 3;  // rate-limited answers (429) waited out before giving up
  std::shared_ptr<const common::Outbound> outbound = nullptr;
};

class AzureDnsProvider : public ports::DnsProvider {
 public:
  explicit AzureDnsProvider(AzureSettings settings);
  ~AzureDnsProvider() override;

  // What a credential must give: the tenant, client and subscription ids (GUIDs); the client
  // secret (no spaces); a resource group name (1..90 letters, digits, '-', '_', '.', '(', ')',
  // not ending in '.'); a zone name when one is given; https addresses (http only to a loopback
  // host) without query or user.
  static domain::Status validate(const AzureSettings& settings);

  domain::Status present(const ports::TxtRecord& record) override;
  domain::Status cleanup(const ports::TxtRecord& record) override;
  domain::Status waitVisible(const ports::TxtRecord& record, domain::Duration timeout) override;

 private:
  struct RecordSet;  // the source's: the set's etag, TTL, entries and metadata as ARM gave them
  struct Zone {
    std::string name;  // lower case, without the trailing dot
    std::vector<std::string> name_servers;
  };

  // The access token: the one kept, or a new one when there is none or it is about to expire.
  domain::Result<std::string> accessToken();
  domain::Result<std::string> fetchToken();
  // One ARM call (`path` after the base, api-version added), 429s waited out, a 401 answered by
  // one renewal of the token. `condition`: an If-Match / If-None-Match header line, or "".
  domain::Result<JsonAnswer> call(std::string_view method, const std::string& path,
                                  const std::string& body = {}, const std::string& condition = {});
  // The Azure zone of `record` (zone_name, else the record's zone), read once for its name
  // servers; invalid_argument when the record's name is not in it.
  domain::Result<Zone> zoneOf(const ports::TxtRecord& record);
  domain::Result<RecordSet> recordSet(const Zone& zone, const std::string& setName);
  // Adds (or removes) the record's value by a conditional write of the whole set.
  domain::Status change(const ports::TxtRecord& record, bool add);

  AzureSettings settings_;
  std::mutex mutex_;  // guards token_, tokenUntil_, zones_ and checkers_
  std::string token_;
  std::chrono::steady_clock::time_point tokenUntil_{};
  std::map<std::string, Zone> zones_;
  std::map<std::string, std::shared_ptr<Rfc2136DnsProvider>> checkers_;
};

}  // namespace certsteward::adapters::dns
