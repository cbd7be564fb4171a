// The PowerDNS Authoritative HTTP API, for DNS-01.
#include <certsteward/adapters/dns/powerdns_dns_provider.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>

#include <certsteward/adapters/common/http_client.hpp>
#include <certsteward/adapters/dns/dns_names.hpp>
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>

namespace certsteward::adapters::dns {

namespace json = boost::json;
using domain::ErrorCode;
using domain::makeError;

namespace {

// The API's own words from an error body ({"error": "..."}), bounded; empty when none.
std::string apiError(const std::string& body) {
  boost::system::error_code ec;
  const auto v = json::parse(body, ec);
  if (ec || !v.is_object()) return {};
  const auto* e = v.as_object().if_contains("error");
  if (e == nullptr || !e->is_string()) return {};
  std::string text(e->as_string());
  if (text.size() > 200) text.resize(200);
  return text;
}

}  // namespace

PowerDnsProvider::PowerDnsProvider(PowerDnsSettings settings)
    : settings_(std::move(settings)),
      checker_(Rfc2136DnsProvider::visibilityChecker(settings_.check_servers, settings_.timeout,
                                                     settings_.poll_interval, settings_.outbound,
                                                     settings_.find_authoritative)) {}

PowerDnsProvider::~PowerDnsProvider() = default;

domain::Status PowerDnsProvider::validate(const PowerDnsSettings& s) {
  const auto& url = s.api_url;
  const auto scheme = url.find("://");
  if (scheme == std::string::npos || !common::isAllowedHttpUrl(url)) {
    return makeError(ErrorCode::invalid_argument,
                     "api_url must be an https URL (http only to a loopback host)");
  }
  if (url.find('/', scheme + 3) != std::string::npos || url.find('?') != std::string::npos ||
      url.find('@') != std::string::npos) {
    return makeError(
        ErrorCode::invalid_argument,
        "api_url must be the API's address only, such as https://pdns.example.net:8081 "
        "(no path, query or user)");
  }
  if (!plainName(s.server_id) || s.server_id.find('.') == 0) {
    return makeError(ErrorCode::invalid_argument,
                     "server_id must be letters, digits, '.', '-' or '_' (usually localhost)");
  }
  if (s.api_key.empty()) return makeError(ErrorCode::invalid_argument, "the API key is missing");
  if (s.check_servers.empty() && !s.find_authoritative) {
    return makeError(ErrorCode::invalid_argument,
                     "check_servers must name at least one authoritative server (host[:port])");
  }
  return {};
}

std::string PowerDnsProvider::zoneUrl(const std::string& zone) const {
  return settings_.api_url + "/api/v1/servers/" + settings_.server_id + "/zones/" + zone;
}

namespace {

// What a status other than success means, in words that say what to fix (never the key).
domain::Error refusal(long status, const std::string& body, const std::string& zone,
                      const std::string& serverId) {
  const std::string said = apiError(body);
  const std::string detail = said.empty() ? std::string() : ": " + said;
  if (status == 401 || status == 403) {
    return makeError(ErrorCode::permission_denied,
                     "PowerDNS refused the API key (" + std::to_string(status) +
                         "): check the DNS credential's API key and the server's api-key and "
                         "webserver-allow-from");
  }
  if (status == 404) {
    return makeError(ErrorCode::failed_precondition,
                     "PowerDNS has no zone " + zone + " on server " + serverId +
                         ": create it there, or check the zone's name and server_id" + detail);
  }
  if (status == 422 || status == 400) {
    return makeError(ErrorCode::invalid_argument,
                     "PowerDNS refused the change (" + std::to_string(status) + ")" + detail);
  }
  return makeError(ErrorCode::unavailable, "PowerDNS answered " + std::to_string(status) + detail);
}

}  // namespace

domain::Result<std::vector<std::string>> PowerDnsProvider::values(const std::string& zone,
                                                                  const std::string& name) {
  common::HttpRequest request;
  request.url = zoneUrl(zone);
  request.headers = {"X-API-Key: " + settings_.api_key, "Accept: application/json"};
  request.ca_pem = settings_.ca_pem;
  request.timeout = settings_.timeout;
  request.response_limit = 16 * 1024 * 1024;  // a whole zone
  request.secrets = {settings_.api_key};
  request.outbound = settings_.outbound.get();
  auto answer = common::getHttp(request);
  if (!answer) return answer.error();
  if (answer->status != 200)
    return refusal(answer->status, answer->body, zone, settings_.server_id);
  boost::system::error_code ec;
  const auto doc = json::parse(answer->body, ec);
  const auto* rrsets = !ec && doc.is_object() ? doc.as_object().if_contains("rrsets") : nullptr;
  if (rrsets == nullptr || !rrsets->is_array()) {
    return makeError(ErrorCode::unavailable, "PowerDNS answered a zone without its records");
  }
  std::vector<std::string> out;
  for (const auto& set : rrsets->as_array()) {
    const auto* o = set.if_object();
    if (o == nullptr) continue;
    const auto* n = o->if_contains("name");
    const auto* t = o->if_contains("type");
    const auto* records = o->if_contains("records");
    if (n == nullptr || t == nullptr || records == nullptr || !n->is_string() || !t->is_string() ||
        !records->is_array() || t->as_string() != "TXT") {
      continue;
    }
    if (lowered(std::string(n->as_string())) != name) continue;
    for (const auto& r : records->as_array()) {
      const auto* content = r.is_object() ? r.as_object().if_contains("content") : nullptr;
      if (content != nullptr && content->is_string()) out.emplace_back(content->as_string());
    }
  }
  return out;
}

domain::Status PowerDnsProvider::replace(const ports::TxtRecord& record,
                                         const std::vector<std::string>& values) {
  json::array records;
  for (const auto& v : values)
    records.push_back(json::object{{"content", v}, {"disabled", false}});
  json::object set{{"name", absolute(record.name)},
                   {"type", "TXT"},
                   {"ttl", record.ttl_seconds},
                   {"changetype", values.empty() ? "DELETE" : "REPLACE"}};
  if (!values.empty()) set["records"] = std::move(records);
  common::HttpRequest request;
  request.url = zoneUrl(absolute(record.zone));
  request.headers = {"X-API-Key: " + settings_.api_key, "Content-Type: application/json"};
  request.body = json::serialize(json::object{{"rrsets", json::array{std::move(set)}}});
  request.ca_pem = settings_.ca_pem;
  request.timeout = settings_.timeout;
  request.secrets = {settings_.api_key};
  request.outbound = settings_.outbound.get();
  auto answer = common::sendHttp("PATCH", request);
  if (!answer) return answer.error();
  if (answer->status != 204 && answer->status != 200) {
    return refusal(answer->status, answer->body, absolute(record.zone), settings_.server_id);
  }
  return {};
}

domain::Status PowerDnsProvider::present(const ports::TxtRecord& record) {
  if (auto ok = checkRecord(record); !ok) return ok;
  const auto lock = lockName(record.name);
  auto now = values(absolute(record.zone), lowered(absolute(record.name)));
  if (!now) return now.error();
  const std::string value = quoted(record.value);
  if (std::find(now->begin(), now->end(), value) != now->end()) return {};
  now->push_back(value);
  return replace(record, *now);
}

domain::Status PowerDnsProvider::cleanup(const ports::TxtRecord& record) {
  if (auto ok = checkRecord(record); !ok) return ok;
  const auto lock = lockName(record.name);
  auto now = values(absolute(record.zone), lowered(absolute(record.name)));
  if (!now) return now.error();
  const std::string value = quoted(record.value);
  const auto at = std::find(now->begin(), now->end(), value);
  if (at == now->end()) return {};  // already gone
  now->erase(at);
  return replace(record, *now);
}

domain::Status PowerDnsProvider::waitVisible(const ports::TxtRecord& record,
                                             domain::Duration timeout) {
  return checker_->waitVisible(record, timeout);
}

}  // namespace certsteward::adapters::dns
