// Cloudflare's API v4, for DNS-01.
#include <certsteward/adapters/dns/cloudflare_dns_provider.hpp>

#include <boost/json.hpp>

#include <algorithm>

#include <certsteward/adapters/common/http_client.hpp>
#include <certsteward/adapters/dns/dns_names.hpp>
#include <certsteward/adapters/dns/json_api.hpp>
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>

namespace certsteward::adapters::dns {

namespace json = boost::json;
using domain::ErrorCode;
using domain::makeError;

namespace {

constexpr int kMaxPages = 50;  // bounds every walk through a paged answer

// The API's own words ("Authentication error (10000)", and the chain under it), bounded.
std::string apiErrors(const json::object& doc) {
  const auto* errors = doc.if_contains("errors");
  if (errors == nullptr || !errors->is_array()) return {};
  std::string out;
  const auto add = [&out](const json::value& e) {
    if (!e.is_object()) return;
    const auto& o = e.as_object();
    const auto* code = o.if_contains("code");
    out += (out.empty() ? "" : "; ") + jsonText(o, "message");
    if (code != nullptr && code->is_int64()) out += " (" + std::to_string(code->as_int64()) + ")";
  };
  for (const auto& e : errors->as_array()) {
    add(e);
    if (const auto* chain = e.is_object() ? e.as_object().if_contains("error_chain") : nullptr;
        chain != nullptr && chain->is_array()) {
      for (const auto& c : chain->as_array())
        add(c);
    }
  }
  if (out.size() > 300) out.resize(300);
  return out;
}

bool hasErrorCode(const json::object& doc, std::int64_t wanted) {
  const auto* errors = doc.if_contains("errors");
  if (errors == nullptr || !errors->is_array()) return false;
  for (const auto& e : errors->as_array()) {
    const auto* code = e.is_object() ? e.as_object().if_contains("code") : nullptr;
    if (code != nullptr && code->is_int64() && code->as_int64() == wanted) return true;
  }
  return false;
}

// What an answer other than success means, in words that say what to fix (never the token).
domain::Error refusal(long status, const json::object& doc, const std::string& zone) {
  const std::string said = apiErrors(doc);
  const std::string detail = said.empty() ? std::string() : ": " + said;
  const std::string code = std::to_string(status);
  if (status == 401 || status == 403 || hasErrorCode(doc, 6003)) {
    return makeError(ErrorCode::permission_denied,
                     "Cloudflare refused the API token (" + code + detail +
                         "): check the DNS credential's token, and that it may read the zone "
                         "(Zone: Read) and edit its DNS records (DNS: Edit)");
  }
  if (status == 404) {
    return makeError(ErrorCode::failed_precondition,
                     "Cloudflare has no zone " + zone +
                         " under this token (or no such record): check the zone's name and the "
                         "credential's zone_id" +
                         detail);
  }
  if (status == 429) {
    return makeError(ErrorCode::unavailable,
                     "Cloudflare's rate limit was reached (429): the change is retried later");
  }
  if (status == 400 || status == 409 || status == 422) {
    return makeError(ErrorCode::invalid_argument,
                     "Cloudflare refused the change (" + code + ")" + detail);
  }
  return makeError(ErrorCode::unavailable, "Cloudflare answered " + code + detail);
}

bool hexId(const std::string& id) {
  return id.size() == 32 && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// The number of pages a listing has (result_info.total_pages), at least 1.
std::int64_t totalPages(const json::object& doc) {
  const auto* info = doc.if_contains("result_info");
  const auto* pages =
      info != nullptr && info->is_object() ? info->as_object().if_contains("total_pages") : nullptr;
  return pages != nullptr && pages->is_int64() ? std::max<std::int64_t>(1, pages->as_int64()) : 1;
}

}  // namespace

CloudflareDnsProvider::CloudflareDnsProvider(CloudflareSettings settings)
    : settings_(std::move(settings)) {}

CloudflareDnsProvider::~CloudflareDnsProvider() = default;

domain::Status CloudflareDnsProvider::validate(const CloudflareSettings& s) {
  const auto& url = s.api_url;
  if (url.find("://") == std::string::npos || !common::isAllowedHttpUrl(url)) {
    return makeError(ErrorCode::invalid_argument,
                     "api_url must be an https URL (http only to a loopback host)");
  }
  if (url.find('?') != std::string::npos || url.find('@') != std::string::npos ||
      url.find('#') != std::string::npos) {
    return makeError(ErrorCode::invalid_argument,
                     "api_url must be the API's base address, such as " +
                         std::string(CloudflareSettings::kApiUrl) + " (no query or user)");
  }
  if (!s.zone_id.empty() && !hexId(s.zone_id)) {
    return makeError(ErrorCode::invalid_argument,
                     "zone_id must be the zone's id as Cloudflare shows it (32 hex digits), or "
                     "left empty to find the zone by name");
  }
  if (s.api_token.empty())
    return makeError(ErrorCode::invalid_argument, "the API token is missing");
  if (s.api_token.find_first_of(" \t\r\n") != std::string::npos) {
    return makeError(ErrorCode::invalid_argument,
                     "the API token must be the token alone, without spaces or 'Bearer'");
  }
  if (s.per_page < 5) return makeError(ErrorCode::invalid_argument, "per_page must be 5 or more");
  return {};
}

domain::Result<JsonAnswer> CloudflareDnsProvider::call(std::string_view method,
                                                       const std::string& target,
                                                       const std::string& body) {
  const auto request =
      bearerJsonRequest(settings_.api_url + target, settings_.api_token, body, settings_.ca_pem,
                        settings_.timeout, settings_.outbound.get());
  auto answer = callJsonApi(method, request, settings_.max_retries);
  if (!answer) return answer.error();
  const auto* ok = answer->doc.if_contains("success");
  const bool succeeded = ok != nullptr && ok->is_bool() && ok->as_bool();
  if (answer->status >= 200 && answer->status < 300 && !succeeded) {
    return makeError(ErrorCode::unavailable,
                     "Cloudflare answered " + std::to_string(answer->status) + " without success");
  }
  return answer;  // a refusal is worded by the caller (it knows the zone)
}

domain::Result<CloudflareDnsProvider::Zone> CloudflareDnsProvider::zoneOf(const std::string& zone) {
  const std::string wanted = lowered(relative(zone));
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = zones_.find(wanted); it != zones_.end()) return it->second;
  }
  const auto zoneFrom = [](const json::object& o) {
    Zone z{jsonText(o, "id"), {}};
    if (const auto* ns = o.if_contains("name_servers"); ns != nullptr && ns->is_array()) {
      for (const auto& n : ns->as_array()) {
        if (n.is_string()) z.name_servers.emplace_back(n.as_string());
      }
    }
    return z;
  };
  std::optional<Zone> found;
  if (!settings_.zone_id.empty()) {
    auto answer = call("GET", "/zones/" + settings_.zone_id);
    if (!answer) return answer.error();
    if (answer->status != 200) return refusal(answer->status, answer->doc, wanted);
    const auto* result = answer->doc.if_contains("result");
    if (result == nullptr || !result->is_object()) {
      return makeError(ErrorCode::unavailable, "Cloudflare answered a zone without its details");
    }
    const std::string name = lowered(jsonText(result->as_object(), "name"));
    if (name != wanted) {
      return makeError(ErrorCode::failed_precondition,
                       "the credential's zone_id is Cloudflare's zone " + name.substr(0, 253) +
                           ", not " + wanted + ": give that zone's id, or leave zone_id empty");
    }
    found = zoneFrom(result->as_object());
  } else {
    for (std::int64_t page = 1, pages = 1; page <= pages && page <= kMaxPages && !found; ++page) {
      auto answer =
          call("GET", "/zones?name=" + wanted + "&per_page=50&page=" + std::to_string(page));
      if (!answer) return answer.error();
      if (answer->status != 200) return refusal(answer->status, answer->doc, wanted);
      pages = totalPages(answer->doc);
      const auto* result = answer->doc.if_contains("result");
      if (result == nullptr || !result->is_array()) break;
      for (const auto& z : result->as_array()) {
        if (z.is_object() && lowered(jsonText(z.as_object(), "name")) == wanted) {
          found = zoneFrom(z.as_object());
          break;
        }
      }
    }
    if (!found) {
      return makeError(ErrorCode::failed_precondition,
                       "Cloudflare shows no zone " + wanted +
                           " to this token: add the zone at Cloudflare, or give the token Zone: "
                           "Read on it (or set the credential's zone_id)");
    }
  }
  if (!hexId(found->id)) {
    return makeError(ErrorCode::unavailable, "Cloudflare answered a zone without a valid id");
  }
  const std::lock_guard lock(mutex_);
  zones_[wanted] = *found;
  return *found;
}

domain::Result<std::vector<CloudflareDnsProvider::Record>> CloudflareDnsProvider::txtRecords(
    const Zone& zone, const std::string& name) {
  std::vector<Record> out;
  for (std::int64_t page = 1, pages = 1; page <= pages && page <= kMaxPages; ++page) {
    auto answer = call("GET", "/zones/" + zone.id + "/dns_records?type=TXT&name=" + name +
                                  "&per_page=" + std::to_string(settings_.per_page) +
                                  "&page=" + std::to_string(page));
    if (!answer) return answer.error();
    if (answer->status != 200) return refusal(answer->status, answer->doc, name);
    pages = totalPages(answer->doc);
    const auto* result = answer->doc.if_contains("result");
    if (result == nullptr || !result->is_array()) break;
    for (const auto& r : result->as_array()) {
      if (!r.is_object()) continue;
      const auto& o = r.as_object();
      if (jsonText(o, "type") != "TXT" || lowered(relative(jsonText(o, "name"))) != name) continue;
      out.push_back({jsonText(o, "id"), unquote(jsonText(o, "content"))});
    }
  }
  return out;
}

domain::Status CloudflareDnsProvider::present(const ports::TxtRecord& record) {
  if (auto ok = checkRecord(record); !ok) return ok;
  auto zone = zoneOf(record.zone);
  if (!zone) return zone.error();
  const std::string name = lowered(relative(record.name));
  const auto lock = lockName(record.name);
  auto now = txtRecords(*zone, name);
  if (!now) return now.error();
  if (std::any_of(now->begin(), now->end(),
                  [&](const Record& r) { return r.value == record.value; }))
    return {};
  const json::object body{{"type", "TXT"},
                          {"name", name},
                          {"content", quoted(record.value)},
                          {"ttl", std::max(record.ttl_seconds, 60)},
                          {"comment", "ACME challenge (CertSteward)"}};
  auto answer = call("POST", "/zones/" + zone->id + "/dns_records", json::serialize(body));
  if (!answer) return answer.error();
  if (answer->status == 200) return {};
  // Written meanwhile by another process (81057/81058: the record already exists): present.
  if (answer->status == 400 &&
      (hasErrorCode(answer->doc, 81057) || hasErrorCode(answer->doc, 81058)))
    return {};
  return refusal(answer->status, answer->doc, lowered(relative(record.zone)));
}

domain::Status CloudflareDnsProvider::cleanup(const ports::TxtRecord& record) {
  if (auto ok = checkRecord(record); !ok) return ok;
  auto zone = zoneOf(record.zone);
  if (!zone) return zone.error();
  const std::string name = lowered(relative(record.name));
  const auto lock = lockName(record.name);
  auto now = txtRecords(*zone, name);
  if (!now) return now.error();
  for (const auto& r : *now) {
    if (r.value != record.value) continue;
    if (!hexId(r.id))
      return makeError(ErrorCode::unavailable, "Cloudflare listed a record without a valid id");
    auto answer = call("DELETE", "/zones/" + zone->id + "/dns_records/" + r.id);
    if (!answer) return answer.error();
    if (answer->status != 200 && answer->status != 404) {  // 404: gone already
      return refusal(answer->status, answer->doc, lowered(relative(record.zone)));
    }
  }
  return {};
}

domain::Status CloudflareDnsProvider::waitVisible(const ports::TxtRecord& record,
                                                  domain::Duration timeout) {
  if (auto ok = checkRecord(record); !ok) return ok;
  auto zone = zoneOf(record.zone);
  if (!zone) return zone.error();
  const auto& servers =
      settings_.check_servers.empty() ? zone->name_servers : settings_.check_servers;
  if (servers.empty()) {
    return makeError(ErrorCode::failed_precondition, "Cloudflare lists no name servers for zone " +
                                                         lowered(relative(record.zone)) +
                                                         ": set the credential's check_servers");
  }
  std::shared_ptr<Rfc2136DnsProvider> checker;
  {
    const std::lock_guard lock(mutex_);
    auto& slot = checkers_[zone->id];
    if (!slot) {
      slot = Rfc2136DnsProvider::visibilityChecker(servers, settings_.timeout,
                                                   settings_.poll_interval, settings_.outbound);
    }
    checker = slot;
  }
  return checker->waitVisible(record, timeout);
}

}  // namespace certsteward::adapters::dns
