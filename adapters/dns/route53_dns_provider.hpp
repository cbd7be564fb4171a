// Route53DnsProvider: DNS-01 TXT records through Amazon Route 53's API (2013-04-01), every call
// signed with AWS Signature Version 4 (adapters/common/aws_sigv4). The hosted zone is found by
// name (ListHostedZonesByName, the public or the private zone of that name as configured) or
// given by id; a value is added or removed by one ChangeResourceRecordSets that UPSERTs the
// name's TXT set with the other values kept (a wildcard and its apex share `_acme-challenge`),
// or DELETEs the set with its exact current values when the last one goes. A record is visible
// once Route 53 reports the change INSYNC (GetChange: every Route 53 name server has it) and the
// set holds the value, and, when `check_servers` are given, those servers answer it too.
// Throttling is retried (1, 2, 4 s). With `role_arn`, the calls are made with credentials of that
// role, assumed through STS with the configured key. Thread-safe: changes to one name are made
// one at a time within this process.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/adapters/common/aws_sigv4.hpp>
#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/ports/dns_provider.hpp>

namespace certsteward::adapters::dns {

class Rfc2136DnsProvider;

struct Route53Settings {
  static constexpr const char* kApiUrl = "https://route53.amazonaws.com";
  std::string api_url = kApiUrl;       // the API's address (no path)
  std::string region = "us-east-1";    // the signing region (Route 53 is global: us-east-1)
  std::string access_key_id = {};      // AKIA... (an IAM user's key)
  std::string secret_access_key = {};  // the secret
  std::string session_token = {};      // temporary credentials: sent as X-Amz-Security-Token
  // Optional: the role assumed (STS AssumeRole, 15-minute credentials, renewed before they lapse)
  // with the key above, whose credentials then make the Route 53 calls; and its external id.
  std::string role_arn = {};
  std::string external_id = {};
  std::string sts_url = "https://sts.amazonaws.com";  // STS's address (no path)
  std::string hosted_zone_id = {};                    // optional: Z...; else found by name
  bool private_zone = false;                          // which zone of that name, when found by name
  std::vector<std::string> check_servers = {};        // optional: also asked over DNS
  std::string ca_pem = {};                        // trusted instead of the system's CAs when set
  std::chrono::milliseconds timeout{5000};        // per request
  std::chrono::milliseconds poll_interval{1000};  // GetChange and visibility polls
  int max_retries = 3;                            // throttled answers retried
  std::shared_ptr<const common::Outbound> outbound = nullptr;
  // The time requests are signed at (tests may fix it).
  std::function<std::chrono::system_clock::time_point()> now = std::chrono::system_clock::now;
};

class Route53DnsProvider : public ports::DnsProvider {
 public:
  explicit Route53DnsProvider(Route53Settings settings);
  ~Route53DnsProvider() override;

  // What a credential must give: an access key id (letters and digits) and its secret; an https
  // API address (http only to a loopback host) without path; a region of letters, digits and
  // '-'; a hosted zone id of capitals and digits when one is given.
  static domain::Status validate(const Route53Settings& settings);

  domain::Status present(const ports::TxtRecord& record) override;
  domain::Status cleanup(const ports::TxtRecord& record) override;
  domain::Status waitVisible(const ports::TxtRecord& record, domain::Duration timeout) override;

 private:
  struct Answer;
  struct RecordSet {
    std::vector<std::string> values;  // unquoted
    int ttl = 60;
    bool exists = false;
  };

  using Deadline = std::chrono::steady_clock::time_point;
  // One signed call, throttling retried; nothing past `deadline` (each request's time capped by
  // what is left of it).
  domain::Result<Answer> call(const std::string& method, const std::string& path,
                              const std::vector<std::pair<std::string, std::string>>& query,
                              const std::string& body = {}, Deadline deadline = Deadline::max());
  domain::Result<std::string> zoneOf(const std::string& zone);
  domain::Result<RecordSet> recordSet(const std::string& zoneId, const std::string& name,
                                      Deadline deadline = Deadline::max());
  // UPSERT (or DELETE) the name's TXT set; remembers the change to wait for.
  domain::Status change(const std::string& zoneId, const std::string& action,
                        const std::string& name, const RecordSet& set);

  // The credentials Route 53 calls are signed with: the key, or the role's (assumed on first
  // use and again a minute before they lapse).
  domain::Result<common::AwsCredentials> credentials(Deadline deadline);
  // One signed request to `base` (an API address) for `service`; throttling retried.
  domain::Result<Answer> signedCall(const std::string& base, const std::string& service,
                                    const common::AwsCredentials& credentials,
                                    const std::string& method, const std::string& path,
                                    const std::vector<std::pair<std::string, std::string>>& query,
                                    const std::string& body, const std::string& contentType,
                                    Deadline deadline);

  Route53Settings settings_;
  std::mutex mutex_;  // guards zones_, pending_, checker_ and the assumed role's credentials
  std::optional<common::AwsCredentials> assumed_;
  std::chrono::steady_clock::time_point assumedUntil_{};
  std::map<std::string, std::string> zones_;    // zone name -> hosted zone id
  std::map<std::string, std::string> pending_;  // record name -> change id not yet INSYNC
  std::shared_ptr<Rfc2136DnsProvider> checker_;
};

}  // namespace certsteward::adapters::dns
