// AcmeDnsProvider: DNS-01 through an acme-dns server (github.com/joohoi/acme-dns). An account
// there answers for one name, its `fulldomain`; a user delegates `_acme-challenge.<name>` to it
// with a CNAME, and the zone routing sends the record there. `present` is `POST /update` with the
// account's user and key (X-Api-User, X-Api-Key); acme-dns keeps the two newest values of a name
// (a wildcard and its apex) and has no delete, so `cleanup` removes nothing. Visibility is asked
// of `check_servers`, by default the API's host on port 53 (acme-dns answers DNS itself). A
// third value in one provider's life (one order naming more than two names delegated to this
// account, apart from a wildcard and its apex) is refused: it would push out the first.
// `registerAccount` makes a new account (`POST /register`). Calls go through the HTTP client's
// rules (https, or http to a loopback host; the outbound policy). Thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/ports/dns_provider.hpp>

namespace certsteward::adapters::dns {

class Rfc2136DnsProvider;

struct AcmeDnsSettings {
  std::string api_url;                     // the acme-dns server, e.g. https://auth.acme-dns.io
  std::string username;                    // the account's user (a UUID)
  std::string password;                    // the account's key: the secret
  std::string subdomain;                   // the account's subdomain (a UUID)
  std::string fulldomain;                  // <subdomain>.<the server's domain>: where the TXT lives
  std::vector<std::string> check_servers;  // default: the API's host, port 53
  std::string ca_pem;                      // trusted instead of the system's CAs when set
  std::chrono::milliseconds timeout{5000};  // per request
  std::chrono::milliseconds poll_interval{250};
  std::shared_ptr<const common::Outbound> outbound = nullptr;
};

// What `POST /register` gave: the settings above but the secret, and the secret.
struct AcmeDnsAccount {
  std::string username;
  std::string password;
  std::string subdomain;
  std::string fulldomain;
};

class AcmeDnsProvider : public ports::DnsProvider {
 public:
  explicit AcmeDnsProvider(AcmeDnsSettings settings);
  ~AcmeDnsProvider() override;

  // An https API URL (http only to a loopback host) without path, query or user; the account's
  // user and subdomain as UUIDs, its fulldomain a DNS name starting with the subdomain; a key.
  static domain::Status validate(const AcmeDnsSettings& settings);
  // A new account at `settings.api_url` (only the URL, CA, timeout and outbound are used).
  static domain::Result<AcmeDnsAccount> registerAccount(const AcmeDnsSettings& settings);

  domain::Status present(const ports::TxtRecord& record) override;
  domain::Status cleanup(const ports::TxtRecord& record) override;
  domain::Status waitVisible(const ports::TxtRecord& record, domain::Duration timeout) override;

 private:
  domain::Status forThisAccount(const ports::TxtRecord& record) const;

  AcmeDnsSettings settings_;
  std::unique_ptr<Rfc2136DnsProvider> checker_;
  std::mutex mutex_;                 // guards presented_
  std::set<std::string> presented_;  // the values this provider has put there
};

}  // namespace certsteward::adapters::dns
