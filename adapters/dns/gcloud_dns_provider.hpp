// GCloudDnsProvider: DNS-01 TXT records through Google Cloud DNS's API v1 with a service
// account's key file (JSON). The key signs a JWT (RS256) that the key file's token_uri exchanges
// for an access token (OAuth 2.0 JWT bearer grant, scope ndev.clouddns.readwrite), sent as
// `Authorization: Bearer`; the token is kept until a minute before it lapses, and renewed once
// when the API answers 401. The managed zone is the public one of the record's zone found by
// dnsName (every page of the listing), or given by name or id. A TXT set is one (name, type): a
// value is added or removed by ONE change that deletes the set exactly as read and adds the new
// set (the name's other values kept: a wildcard and its apex share `_acme-challenge`), or only
// deletes it when the last value goes; a change refused because the set changed meanwhile (409,
// 412, or a deletion of a set gone) is read again and redone, a bounded number of times. A 429
// is waited out (1, 2, 4 s). waitVisible polls the change until Google reports it done, then
// asks the zone's name servers (as the API lists them) or `check_servers` directly. Calls go
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
struct JsonAnswer;            // json_api.hpp
struct GCloudServiceAccount;  // the key file's fields (gcloud_dns_provider.cpp)

struct GCloudSettings {
  static constexpr const char* kApiUrl = "https://dns.googleapis.com/dns/v1";
  std::string api_url = kApiUrl;  // the API's base, up to /dns/v1
  // The secret: the service account's key file (JSON) as Google gives it; its private key signs
  // the token requests and is never sent.
  std::string service_account_json = {};
  std::string project_id = {};    // optional: else the key file's project_id
  std::string managed_zone = {};  // optional: the managed zone's name or id; else found by
                                  // dnsName (public zones only)
  std::vector<std::string> check_servers = {};  // optional: else the zone's nameServers
  std::string ca_pem = {};                      // trusted instead of the system's CAs when set
  std::chrono::milliseconds timeout{5000};      // per request
  std::chrono::milliseconds poll_interval{250};
  int max_retries = 3;  // rate-limited answers (429) waited out before giving up
  std::shared_ptr<const common::Outbound> outbound = nullptr;
};

class GCloudDnsProvider : public ports::DnsProvider {
 public:
  explicit GCloudDnsProvider(GCloudSettings settings);
  ~GCloudDnsProvider() override;

  // What a credential must give: a service account's key file (type service_account,
  // client_email, private_key_id, an RSA private_key in PEM, an https token_uri or http to a
  // loopback host); a project (the setting or the key file's); an https API URL (http only to a
  // loopback host) without query or user; a managed zone's name or id when one is given. Never
  // quotes the key file.
  static domain::Status validate(const GCloudSettings& settings);

  domain::Status present(const ports::TxtRecord& record) override;
  domain::Status cleanup(const ports::TxtRecord& record) override;
  domain::Status waitVisible(const ports::TxtRecord& record, domain::Duration timeout) override;

 private:
  struct Zone {
    std::string path;      // the zone's name (or the configured name or id) as the URL names it
    std::string dns_name;  // "example.com."
    std::vector<std::string> name_servers;
  };
  struct RecordSet {
    bool exists = false;
    long long ttl = 60;
    std::vector<std::string> rrdatas;  // exactly as read (quoted)
    std::vector<std::string> values;   // unquoted, one per rrdata
  };
  struct PendingChange {
    std::string zone_path;
    std::string id;
  };

  // One Cloud DNS call (`target` is the path and query after /projects/<project>), 429s waited
  // out, a 401 answered by renewing the token once.
  domain::Result<JsonAnswer> call(std::string_view method, const std::string& target,
                                  const std::string& body = {});
  // The access token: the one kept until a minute before it lapses, else a new one (an
  // assertion signed with the key, sent to the key file's token_uri); a new one too when the one
  // kept is `refused` (the API just answered it 401). call() has checked the key file.
  domain::Result<std::string> accessToken(const std::string& refused = {});
  domain::Result<Zone> zoneOf(const std::string& zone);
  domain::Result<RecordSet> recordSet(const Zone& zone, const std::string& name);
  // Adds `value` to the name's TXT set (`add`) or removes it: the set read, then one atomic
  // change (nothing when it is already so), read again and redone when the set changed
  // meanwhile; remembers the change to wait for.
  domain::Status change(const Zone& zone, const std::string& name, const std::string& value,
                        bool add, int ttl);

  GCloudSettings settings_;
  std::shared_ptr<const GCloudServiceAccount> account_;  // null: the key file cannot be read
  std::string project_;
  std::mutex tokenMutex_;  // held while a token is requested: one request at a time
  std::string token_;
  std::chrono::steady_clock::time_point tokenUntil_{};
  std::mutex mutex_;  // guards zones_, pending_ and checkers_
  std::map<std::string, Zone> zones_;
  std::map<std::string, PendingChange> pending_;  // record name -> change not yet done
  std::map<std::string, std::shared_ptr<Rfc2136DnsProvider>> checkers_;
};

}  // namespace certsteward::adapters::dns
