// acme-dns's API (register, update), for DNS-01 through a CNAME delegation.
#include <certsteward/adapters/dns/acmedns_dns_provider.hpp>

#include <algorithm>

#include <certsteward/adapters/dns/dns_names.hpp>
#include <certsteward/adapters/dns/json_api.hpp>
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>

namespace certsteward::adapters::dns {

namespace json = boost::json;
using domain::ErrorCode;
using domain::makeError;

namespace {

bool isUuid(const std::string& text) {
  if (text.size() != 36) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// The host of an http(s) URL, for the default visibility check ("host:53").
std::string hostOf(const std::string& url) {
  auto at = url.find("://");
  std::string rest = at == std::string::npos ? url : url.substr(at + 3);
  rest = rest.substr(0, rest.find('/'));
  if (rest.starts_with("[")) return rest.substr(0, rest.find(']') + 1);
  return rest.substr(0, rest.find(':'));
}

// A request to the API: JSON, the account's user and key (masked) when given.
common::HttpRequest apiRequest(const AcmeDnsSettings& s, const std::string& path, std::string body,
                               bool withAccount) {
  common::HttpRequest request;
  request.url = s.api_url + path;
  request.headers = {"Accept: application/json", "Content-Type: application/json"};
  if (withAccount) {
    request.headers.push_back("X-Api-User: " + s.username);
    request.headers.push_back("X-Api-Key: " + s.password);
    request.secrets = {s.password};
  }
  request.body = std::move(body);
  request.ca_pem = s.ca_pem;
  request.timeout = s.timeout;
  request.response_limit = 64 * 1024;
  request.outbound = s.outbound.get();
  return request;
}

// What an answer other than success means, in words that say what to fix (never the key).
domain::Error refusal(long status, const json::object& doc) {
  const std::string said = jsonText(doc, "error").substr(0, 60);
  const std::string code = std::to_string(status) + (said.empty() ? "" : " " + said);
  if (status == 401 || status == 403) {
    return makeError(ErrorCode::permission_denied,
                     "acme-dns refused the account (" + code +
                         "): check the DNS credential's username, subdomain and key (its "
                         "secret), and that the account allows this server's address");
  }
  if (status == 400) {
    return makeError(ErrorCode::invalid_argument, "acme-dns refused the update (" + code + ")");
  }
  if (status >= 400 && status < 500 && status != 429) {  // not an acme-dns API: the address
    return makeError(ErrorCode::invalid_argument,
                     "api_url answered " + code + ": check that it is the acme-dns server");
  }
  return makeError(ErrorCode::unavailable, "acme-dns answered " + code);
}

}  // namespace

AcmeDnsProvider::AcmeDnsProvider(AcmeDnsSettings settings) : settings_(std::move(settings)) {
  auto servers = settings_.check_servers;
  if (servers.empty()) servers.push_back(hostOf(settings_.api_url) + ":53");
  checker_ = Rfc2136DnsProvider::visibilityChecker(servers, settings_.timeout,
                                                   settings_.poll_interval, settings_.outbound);
}

AcmeDnsProvider::~AcmeDnsProvider() = default;

domain::Status AcmeDnsProvider::validate(const AcmeDnsSettings& s) {
  const auto& url = s.api_url;
  const auto scheme = url.find("://");
  if (scheme == std::string::npos || !common::isAllowedHttpUrl(url)) {
    return makeError(ErrorCode::invalid_argument,
                     "api_url must be an https URL (http only to a loopback host)");
  }
  if (url.find_first_of("?#@", scheme) != std::string::npos ||
      url.find('/', scheme + 3) != std::string::npos) {
    return makeError(ErrorCode::invalid_argument,
                     "api_url must be the acme-dns server's address only, such as "
                     "https://auth.acme-dns.io (no path, query or user)");
  }
  if (!isUuid(s.username)) {
    return makeError(ErrorCode::invalid_argument,
                     "username must be the account's user as acme-dns gave it (a UUID)");
  }
  if (!isUuid(s.subdomain)) {
    return makeError(ErrorCode::invalid_argument,
                     "subdomain must be the account's subdomain as acme-dns gave it (a UUID)");
  }
  const std::string full = lowered(relative(s.fulldomain));
  if (!plainName(full) || !full.starts_with(s.subdomain + ".")) {
    return makeError(ErrorCode::invalid_argument,
                     "fulldomain must be the account's full domain as acme-dns gave it "
                     "(<subdomain>.<its domain>)");
  }
  if (s.password.empty() || s.password.size() > 256 ||
      s.password.find_first_of(" \t\r\n") != std::string::npos) {
    return makeError(ErrorCode::invalid_argument,
                     "the account's key (the secret) is missing or has spaces");
  }
  return {};
}

domain::Result<AcmeDnsAccount> AcmeDnsProvider::registerAccount(const AcmeDnsSettings& s) {
  auto answer = callJsonApi("POST", apiRequest(s, "/register", "{}", false), 1);
  if (!answer) return answer.error();
  if (answer->status != 201 && answer->status != 200) {
    auto e = refusal(answer->status, answer->doc);
    e.message = "acme-dns did not register an account: " + e.message;
    return e;
  }
  AcmeDnsAccount account{jsonText(answer->doc, "username"), jsonText(answer->doc, "password"),
                         jsonText(answer->doc, "subdomain"),
                         lowered(relative(jsonText(answer->doc, "fulldomain")))};
  AcmeDnsSettings check = s;
  check.username = account.username;
  check.password = account.password;
  check.subdomain = account.subdomain;
  check.fulldomain = account.fulldomain;
  if (auto ok = validate(check); !ok) {
    return makeError(ErrorCode::unavailable,
                     "acme-dns answered the registration with an account this server cannot use "
                     "(" +
                         ok.error().message + ")");
  }
  return account;
}

domain::Status AcmeDnsProvider::forThisAccount(const ports::TxtRecord& record) const {
  if (auto ok = checkRecord(record); !ok) return ok;
  const std::string full = lowered(relative(settings_.fulldomain));
  if (lowered(relative(record.name)) != full) {
    return makeError(ErrorCode::failed_precondition, "this acme-dns account answers only for " +
                                                         full + ", not " + relative(record.name) +
                                                         ": the zone using it must be " + full);
  }
  return {};
}

domain::Status AcmeDnsProvider::present(const ports::TxtRecord& record) {
  if (auto ok = forThisAccount(record); !ok) return ok;
  {
    std::lock_guard hold(mutex_);
    if (presented_.count(record.value) == 0 && presented_.size() >= 2) {
      return makeError(ErrorCode::failed_precondition,
                       "acme-dns keeps two values per account, and this order needs more at " +
                           relative(settings_.fulldomain) +
                           ": give each name (with its wildcard) an acme-dns account of its own");
    }
    presented_.insert(record.value);
  }
  const auto lock = lockName(record.name);
  const json::object body{{"subdomain", settings_.subdomain}, {"txt", record.value}};
  auto answer =
      callJsonApi("POST", apiRequest(settings_, "/update", json::serialize(body), true), 3);
  if (!answer) return answer.error();
  if (answer->status == 200) return {};
  return refusal(answer->status, answer->doc);
}

// acme-dns has no delete: the two newest values stay until later updates replace them.
domain::Status AcmeDnsProvider::cleanup(const ports::TxtRecord& record) {
  return forThisAccount(record);
}

domain::Status AcmeDnsProvider::waitVisible(const ports::TxtRecord& record,
                                            domain::Duration timeout) {
  if (auto ok = forThisAccount(record); !ok) return ok;
  return checker_->waitVisible(record, timeout);
}

}  // namespace certsteward::adapters::dns
