// Hetzner DNS through the Hetzner Cloud API (v1: Zones, Zone RRSets, Actions), for DNS-01.
#include <certsteward/adapters/dns/hetzner_dns_provider.hpp>

#include <boost/json.hpp>

#include <algorithm>
#include <optional>
#include <thread>

#include <certsteward/adapters/common/http_client.hpp>
#include <certsteward/adapters/dns/dns_names.hpp>
#include <certsteward/adapters/dns/json_api.hpp>
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>
#include <certsteward/domain/encoding.hpp>

namespace certsteward::adapters::dns {

namespace json = boost::json;
using domain::ErrorCode;
using domain::makeError;

namespace {

constexpr int kMaxPages = 50;                    // bounds every walk through a paged answer
constexpr std::chrono::seconds kActionWait{60};  // an Action still running after this is late

// Hetzner's error, {"error": {"code", "message"}}, as "code (message)": bounded, the token masked.
std::string apiError(const json::object& doc, const std::string& token) {
  const auto* error = doc.if_contains("error");
  if (error == nullptr || !error->is_object()) return {};
  const std::string code = jsonText(error->as_object(), "code");
  const std::string message = jsonText(error->as_object(), "message");
  std::string out = code + (message.empty() ? "" : " (" + message + ")");
  if (out.size() > 200) out.resize(200);
  return common::maskSecrets(out, {token});
}

std::string errorCode(const json::object& doc) {
  const auto* error = doc.if_contains("error");
  return error != nullptr && error->is_object() ? jsonText(error->as_object(), "code")
                                                : std::string();
}

// What an answer other than success means, in words that say what to fix (never the token).
domain::Error refusal(long status, const json::object& doc, const std::string& zone,
                      const std::string& token) {
  const std::string code = errorCode(doc);
  const std::string said = apiError(doc, token);
  const std::string what = std::to_string(status) + (said.empty() ? "" : " " + said);
  if (status == 401 || status == 403) {
    return makeError(ErrorCode::permission_denied,
                     "Hetzner refused the API token (" + what +
                         "): check the DNS credential's token, and that it is a Read & Write API "
                         "token of the Cloud project that holds the zone " +
                         zone);
  }
  if (status == 404) {
    return makeError(ErrorCode::failed_precondition,
                     "Hetzner has no zone " + zone +
                         " in the API token's project: create it under DNS in that Cloud "
                         "project (Hetzner Console), or check the credential's zone_id (" +
                         what + ")");
  }
  if (code == "incorrect_zone_mode") {
    return makeError(ErrorCode::failed_precondition,
                     "Hetzner's zone " + zone +
                         " is a secondary zone: its records can only be changed on its primary "
                         "server, so give this zone a credential for that server");
  }
  if (code == "protected") {
    return makeError(ErrorCode::failed_precondition,
                     "Hetzner refused the change: the name's TXT records in zone " + zone +
                         " are protected against changes; lift that protection (" + what + ")");
  }
  if (status == 429) {
    return makeError(ErrorCode::unavailable,
                     "Hetzner's rate limit was reached (429): the change is retried later");
  }
  if (status == 423) {
    return makeError(ErrorCode::unavailable, "Hetzner is busy with another change of zone " + zone +
                                                 " (" + what + "): the change is retried later");
  }
  if (status == 400 || status == 409 || status == 422) {
    return makeError(ErrorCode::invalid_argument, "Hetzner refused the change (" + what + ")");
  }
  return makeError(ErrorCode::unavailable, "Hetzner answered " + what);
}

bool numericId(const std::string& id) {
  return !id.empty() && id.size() <= 20 &&
         std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A JSON id (a positive integer; zone ids exceed 32 bits) in decimal, or "".
std::string idText(const json::value* v) {
  if (v == nullptr) return {};
  if (v->is_int64() && v->as_int64() > 0) return std::to_string(v->as_int64());
  if (v->is_uint64()) return std::to_string(v->as_uint64());
  return {};
}

// One path segment: RFC 3986 unreserved characters, '@' and '*' as they are; any other byte %XX.
std::string pathSegment(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '@' || c == '*') {
      out.push_back(c);
    } else {
      out += domain::percentEncode(std::string_view(&c, 1));
    }
  }
  return out;
}

// The RRSet name within the zone (both lower case, without the trailing dot): relative, "@" for
// the zone itself.
std::string rrNameOf(const std::string& name, const std::string& zone) {
  if (name == zone) return "@";
  return name.substr(0, name.size() - zone.size() - 1);
}

// The next page of a listing (meta.pagination.next_page), or 0 when this is the last.
std::int64_t nextPage(const json::object& doc) {
  const auto* meta = doc.if_contains("meta");
  const auto* pagination =
      meta != nullptr && meta->is_object() ? meta->as_object().if_contains("pagination") : nullptr;
  const auto* next = pagination != nullptr && pagination->is_object()
                         ? pagination->as_object().if_contains("next_page")
                         : nullptr;
  return next != nullptr && next->is_int64() ? next->as_int64() : 0;
}

}  // namespace

HetznerDnsProvider::HetznerDnsProvider(HetznerSettings settings) : settings_(std::move(settings)) {}

HetznerDnsProvider::~HetznerDnsProvider() = default;

domain::Status HetznerDnsProvider::validate(const HetznerSettings& s) {
  const auto& url = s.api_url;
  if (url.find("://") == std::string::npos || !common::isAllowedHttpUrl(url)) {
    return makeError(ErrorCode::invalid_argument,
                     "api_url must be an https URL (http only to a loopback host)");
  }
  if (url.find_first_of("?#@") != std::string::npos) {
    return makeError(ErrorCode::invalid_argument,
                     "api_url must be the API's base address, such as " +
                         std::string(HetznerSettings::kApiUrl) + " (no query or user)");
  }
  if (!s.zone_id.empty() && !numericId(s.zone_id)) {
    return makeError(ErrorCode::invalid_argument,
                     "zone_id must be the zone's numeric id as the Hetzner Console shows it, or "
                     "left empty to find the zone by name");
  }
  if (s.api_token.empty())
    return makeError(ErrorCode::invalid_argument, "the API token is missing");
  if (s.api_token.find_first_of(" \t\r\n") != std::string::npos) {
    return makeError(ErrorCode::invalid_argument,
                     "the API token must be the token alone, without spaces or 'Bearer'");
  }
  return {};
}

domain::Result<JsonAnswer> HetznerDnsProvider::call(std::string_view method,
                                                    const std::string& target,
                                                    const std::string& body) {
  const auto request =
      bearerJsonRequest(settings_.api_url + target, settings_.api_token, body, settings_.ca_pem,
                        settings_.timeout, settings_.outbound.get());
  return callJsonApi(method, request, settings_.max_retries);
}

domain::Result<HetznerDnsProvider::Zone> HetznerDnsProvider::zoneOf(const std::string& zone) {
  const std::string wanted = lowered(relative(zone));
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = zones_.find(wanted); it != zones_.end()) return it->second;
  }
  const auto zoneFrom = [&wanted](const json::object& o) {
    Zone z{idText(o.if_contains("id")), wanted, {}};
    const auto* ns = o.if_contains("authoritative_nameservers");
    const auto* assigned =
        ns != nullptr && ns->is_object() ? ns->as_object().if_contains("assigned") : nullptr;
    if (assigned != nullptr && assigned->is_array()) {
      for (const auto& n : assigned->as_array()) {
        if (n.is_string() && !n.as_string().empty())
          z.name_servers.push_back(relative(std::string(n.as_string())));
      }
    }
    return z;
  };
  std::optional<Zone> found;
  std::string mode;
  if (!settings_.zone_id.empty()) {
    auto answer = call("GET", "/zones/" + settings_.zone_id);
    if (!answer) return answer.error();
    if (answer->status == 404) {
      return makeError(ErrorCode::failed_precondition,
                       "Hetzner has no zone with the credential's zone_id " + settings_.zone_id +
                           " in the API token's project: check zone_id, or leave it empty to "
                           "find " +
                           wanted + " by name");
    }
    if (answer->status != 200)
      return refusal(answer->status, answer->doc, wanted, settings_.api_token);
    const auto* result = answer->doc.if_contains("zone");
    if (result == nullptr || !result->is_object()) {
      return makeError(ErrorCode::unavailable, "Hetzner answered a zone without its details");
    }
    const std::string name = lowered(relative(jsonText(result->as_object(), "name")));
    if (name != wanted) {
      return makeError(ErrorCode::failed_precondition,
                       "the credential's zone_id is Hetzner's zone " + name.substr(0, 253) +
                           ", not " + wanted + ": give that zone's id, or leave zone_id empty");
    }
    found = zoneFrom(result->as_object());
    mode = jsonText(result->as_object(), "mode");
  } else {
    for (std::int64_t page = 1; page >= 1 && page <= kMaxPages && !found;) {
      auto answer = call("GET", "/zones?name=" + domain::percentEncode(wanted) +
                                    "&per_page=50&page=" + std::to_string(page));
      if (!answer) return answer.error();
      if (answer->status != 200)
        return refusal(answer->status, answer->doc, wanted, settings_.api_token);
      const auto* zones = answer->doc.if_contains("zones");
      if (zones == nullptr || !zones->is_array()) break;
      for (const auto& z : zones->as_array()) {
        if (z.is_object() && lowered(relative(jsonText(z.as_object(), "name"))) == wanted) {
          found = zoneFrom(z.as_object());
          mode = jsonText(z.as_object(), "mode");
          break;
        }
      }
      const auto next = nextPage(answer->doc);
      page = next > page ? next : 0;
    }
    if (!found) {
      return makeError(ErrorCode::failed_precondition,
                       "Hetzner shows no zone " + wanted +
                           " to this API token: create it under DNS in the Cloud project the "
                           "token belongs to (Hetzner Console), or set the credential's zone_id");
    }
  }
  if (!numericId(found->id)) {
    return makeError(ErrorCode::unavailable, "Hetzner answered a zone without a valid id");
  }
  if (!mode.empty() && mode != "primary") {
    return makeError(ErrorCode::failed_precondition,
                     "Hetzner's zone " + wanted + " is a " + mode.substr(0, 20) +
                         " zone: its records can only be changed on its primary server, so give "
                         "this zone a credential for that server");
  }
  const std::lock_guard lock(mutex_);
  zones_[wanted] = *found;
  return *found;
}

domain::Result<std::vector<std::string>> HetznerDnsProvider::txtValues(const Zone& zone,
                                                                       const std::string& rrName) {
  auto answer = call("GET", "/zones/" + zone.id + "/rrsets/" + pathSegment(rrName) + "/TXT");
  if (!answer) return answer.error();
  std::vector<std::string> out;
  if (answer->status == 404) return out;  // no TXT records at that name
  if (answer->status != 200)
    return refusal(answer->status, answer->doc, zone.name, settings_.api_token);
  const auto* rrset = answer->doc.if_contains("rrset");
  const auto* records =
      rrset != nullptr && rrset->is_object() ? rrset->as_object().if_contains("records") : nullptr;
  if (records == nullptr || !records->is_array()) {
    return makeError(ErrorCode::unavailable, "Hetzner answered a record set without its records");
  }
  for (const auto& r : records->as_array()) {
    if (r.is_object()) out.push_back(unquote(jsonText(r.as_object(), "value")));
  }
  return out;
}

domain::Status HetznerDnsProvider::runAction(const Zone& zone, const std::string& rrName,
                                             std::string_view action, const std::string& body,
                                             bool absentOk, std::unique_lock<std::mutex>& lock) {
  auto answer = call("POST",
                     "/zones/" + zone.id + "/rrsets/" + pathSegment(rrName) + "/TXT/actions/" +
                         std::string(action),
                     body);
  if (!answer) return answer.error();
  if (answer->status == 404 && absentOk) return {};  // the record set is gone already
  if (answer->status != 201 && answer->status != 200)
    return refusal(answer->status, answer->doc, zone.name, settings_.api_token);
  // The action is taken: the name's lock (shared by a stripe of names) is not held while it runs.
  lock.unlock();
  return awaitAction(*answer, zone);
}

domain::Status HetznerDnsProvider::awaitAction(const JsonAnswer& started, const Zone& zone) {
  const auto actionOf = [](const json::object& doc) -> const json::object* {
    const auto* a = doc.if_contains("action");
    return a != nullptr && a->is_object() ? &a->as_object() : nullptr;
  };
  const json::object* action = actionOf(started.doc);
  const std::string id = action != nullptr ? idText(action->if_contains("id")) : std::string();
  if (!numericId(id)) {
    return makeError(ErrorCode::unavailable, "Hetzner answered the change without its action");
  }
  const std::string command = jsonText(*action, "command").substr(0, 40);
  const auto deadline = std::chrono::steady_clock::now() + kActionWait;
  const auto pause = std::max(settings_.poll_interval, std::chrono::milliseconds{50});
  std::optional<JsonAnswer> polled;
  for (;;) {
    const std::string status = jsonText(*action, "status");
    if (status == "success") return {};
    if (status == "error") {
      const auto* error = action->if_contains("error");
      std::string why = error != nullptr && error->is_object()
                            ? jsonText(error->as_object(), "code") + " (" +
                                  jsonText(error->as_object(), "message") + ")"
                            : std::string("no reason given");
      if (why.size() > 200) why.resize(200);
      return makeError(ErrorCode::unavailable,
                       "Hetzner could not apply the change to zone " + zone.name + " (action " +
                           command + " failed: " + common::maskSecrets(why, {settings_.api_token}) +
                           "): it is retried later");
    }
    if (std::chrono::steady_clock::now() + pause > deadline) {
      return makeError(ErrorCode::unavailable,
                       "Hetzner's action " + command + " on zone " + zone.name +
                           " was still running after 60 s: the change is retried later");
    }
    std::this_thread::sleep_for(pause);
    auto answer = call("GET", "/actions/" + id);
    if (!answer) return answer.error();
    if (answer->status != 200)
      return refusal(answer->status, answer->doc, zone.name, settings_.api_token);
    polled = std::move(*answer);
    action = actionOf(polled->doc);
    if (action == nullptr) {
      return makeError(ErrorCode::unavailable, "Hetzner answered an action without its details");
    }
  }
}

domain::Status HetznerDnsProvider::present(const ports::TxtRecord& record) {
  if (auto ok = checkRecord(record); !ok) return ok;
  auto zone = zoneOf(record.zone);
  if (!zone) return zone.error();
  const std::string rrName = rrNameOf(lowered(relative(record.name)), zone->name);
  auto lock = lockName(record.name);
  auto now = txtValues(*zone, rrName);
  if (!now) return now.error();
  if (std::find(now->begin(), now->end(), record.value) != now->end()) return {};
  json::array records;
  records.emplace_back(json::object{{"value", quoted(record.value)}});
  json::object body;
  body["ttl"] = std::max(record.ttl_seconds, 60);  // Hetzner's smallest TTL
  body["records"] = std::move(records);
  return runAction(*zone, rrName, "add_records", json::serialize(body), false, lock);
}

domain::Status HetznerDnsProvider::cleanup(const ports::TxtRecord& record) {
  if (auto ok = checkRecord(record); !ok) return ok;
  auto zone = zoneOf(record.zone);
  if (!zone) return zone.error();
  const std::string rrName = rrNameOf(lowered(relative(record.name)), zone->name);
  auto lock = lockName(record.name);
  auto now = txtValues(*zone, rrName);
  if (!now) return now.error();
  if (std::find(now->begin(), now->end(), record.value) == now->end()) return {};  // gone
  json::array records;
  records.emplace_back(json::object{{"value", quoted(record.value)}});
  json::object body;
  body["records"] = std::move(records);
  // Hetzner deletes the record set with its last value.
  return runAction(*zone, rrName, "remove_records", json::serialize(body), true, lock);
}

domain::Status HetznerDnsProvider::waitVisible(const ports::TxtRecord& record,
                                               domain::Duration timeout) {
  if (auto ok = checkRecord(record); !ok) return ok;
  auto zone = zoneOf(record.zone);
  if (!zone) return zone.error();
  const auto& servers =
      settings_.check_servers.empty() ? zone->name_servers : settings_.check_servers;
  if (servers.empty()) {
    return makeError(ErrorCode::failed_precondition,
                     "Hetzner lists no authoritative name servers for zone " + zone->name +
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
