// OvhDnsProvider: DNS-01 TXT records through the OVHcloud API (/1.0, DNS zones) with an
// application key, its application secret and a consumer key. Every call but GET /auth/time is
// signed ("$1$" + SHA-1 of secret + consumer key + method + full URL + body + timestamp) at the
// server's time: /auth/time is read once and its offset from this machine's clock kept (read
// again, and the call made again once, when OVH answers QUERY_TIME_OUT). The zone is the record's
// zone in the account (GET /domain/zone/<zone>); a value is added as a record of its own (POST
// .../record) and removed by deleting the records that hold it (found by listing the name's TXT
// record ids and reading each), so the name's other TXT values stay (a wildcard and its apex
// share `_acme-challenge`); after every change the zone is refreshed (POST .../refresh), as OVH's
// name servers serve nothing new before. A 429 is waited out (its Retry-After, else 1, 2, 4 s;
// at most 10 s at a time). Visibility is asked of the zone's name servers (as the API lists them)
// or `check_servers` directly. Calls go through the HTTP client's rules (https, or http to a
// loopback host; the outbound policy). Thread-safe: changes to one name are made one at a time
// within this process.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/ports/dns_provider.hpp>

namespace certsteward::adapters::dns {

class Rfc2136DnsProvider;

struct OvhSettings {
  static constexpr const char* kApiUrl = "https://eu.api.ovh.com/1.0";
  // The API's base, up to /1.0: ovh-eu; ovh-ca is https://ca.api.ovh.com/1.0, ovh-us
  // https://api.us.ovhcloud.com/1.0.
  std::string api_url = kApiUrl;
  std::string application_key = {};     // sent as X-Ovh-Application
  std::string application_secret = {};  // secret: only signs, never sent
  std::string consumer_key = {};        // secret: sent as X-Ovh-Consumer
  // Optional: else the zone's name servers (GET /domain/zone/<zone>, nameServers).
  std::vector<std::string> check_servers = {};
  std::string ca_pem = {};                  // trusted instead of the system's CAs when set
  std::chrono::milliseconds timeout{5000};  // per request
  std::chrono::milliseconds poll_interval{250};
  int max_retries = 3;  // rate-limited answers (429) waited out before giving up
  std::shared_ptr<const common::Outbound> outbound = nullptr;
};

class OvhDnsProvider : public ports::DnsProvider {
 public:
  explicit OvhDnsProvider(OvhSettings settings);
  ~OvhDnsProvider() override;

  // What a credential must give: the application key (letters and digits), the application
  // secret and the consumer key (no spaces or ':'); an https API URL (http only to a loopback
  // host) without query or user.
  static domain::Status validate(const OvhSettings& settings);

  // The application secret and the consumer key of a credential's one secret, written
  // "<application secret>:<consumer key>". invalid_argument, without quoting it, for anything
  // else.
  static domain::Result<std::pair<std::string, std::string>> splitSecret(const std::string& secret);

  domain::Status present(const ports::TxtRecord& record) override;
  domain::Status cleanup(const ports::TxtRecord& record) override;
  domain::Status waitVisible(const ports::TxtRecord& record, domain::Duration timeout) override;

 private:
  struct Answer;
  struct Record {
    std::string id;
    std::string value;  // unquoted
  };

  // One signed API call (`target` is the path and query after the base), 429s waited out, a
  // QUERY_TIME_OUT answered by reading the server's time again and calling once more.
  domain::Result<Answer> call(std::string_view method, const std::string& target,
                              const std::string& body = {});
  // One exchange, signed at the server's time when `sign`; 429s waited out (signed anew).
  domain::Result<Answer> send(std::string_view method, const std::string& target,
                              const std::string& body, bool sign);
  // Seconds to add to this machine's clock for the server's: read from /auth/time once, and
  // `again` when the server refused a timestamp.
  domain::Result<long long> clockOffset(bool again);
  // The zone's name servers (and that the account has the zone).
  domain::Result<std::vector<std::string>> zoneOf(const std::string& zone);
  // The TXT records of `sub` (relative to the zone, "" for the zone itself).
  domain::Result<std::vector<Record>> txtRecords(const std::string& zone, const std::string& sub);
  // POST .../refresh when the zone `changed` (or an earlier refresh of it failed): OVH's name
  // servers serve the zone as it is now.
  domain::Status publish(const std::string& zone, bool changed);

  OvhSettings settings_;
  std::mutex mutex_;  // guards the offset, zones_, unpublished_ and checkers_
  bool offsetKnown_ = false;
  long long offset_ = 0;
  std::map<std::string, std::vector<std::string>> zones_;  // zone -> its name servers
  std::set<std::string> unpublished_;                      // zones changed whose refresh failed
  std::map<std::string, std::shared_ptr<Rfc2136DnsProvider>> checkers_;
};

}  // namespace certsteward::adapters::dns
