// The OVHcloud API (/1.0, DNS zones), for DNS-01.
#include <certsteward/adapters/dns/ovh_dns_provider.hpp>

#include <openssl/err.h>
#include <openssl/evp.h>

#include <boost/json.hpp>

#include <algorithm>
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

struct OvhDnsProvider::Answer {
  long status = 0;
  json::value doc;      // any JSON: an object, an array of ids, a number, null
  std::string code;     // the refusal's errorCode, when it has one
  std::string message;  // and its message (bounded, secrets masked)
};

namespace {

constexpr int kMaxRecords = 200;  // bounds the records of one name read one by one

domain::Error bad(const std::string& why) {
  return makeError(ErrorCode::invalid_argument, why);
}

// Lower-case hex of SHA-1(text), or "" when OpenSSL cannot make it.
std::string sha1Hex(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &size, EVP_sha1(), nullptr) != 1) {
    ERR_clear_error();
    return {};
  }
  return domain::toHex(std::string_view(reinterpret_cast<const char*>(digest), size));
}

long long nowSeconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool alnum(const std::string& s) {
  return !s.empty() && s.size() <= 128 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  });
}

// A secret part: printable, without spaces or ':' (OVH's keys are letters and digits).
bool secretWord(const std::string& s) {
  return !s.empty() && s.size() <= 256 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7f && c != ':'; });
}

bool numericId(const std::string& id) {
  return !id.empty() && id.size() <= 20 &&
         std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A record id of an answer (a JSON integer), or "".
std::string idOf(const json::value& v) {
  if (v.is_int64() && v.as_int64() >= 0) return std::to_string(v.as_int64());
  if (v.is_uint64()) return std::to_string(v.as_uint64());
  return {};
}

// What an answer other than success means, in words that say what to fix (never a secret).
domain::Error refusal(long status, const std::string& code, const std::string& message,
                      const std::string& zone) {
  const std::string detail = " (" + std::to_string(status) + (code.empty() ? "" : " " + code) +
                             (message.empty() ? "" : ": " + message) + ")";
  if (code == "INVALID_SIGNATURE") {
    return makeError(ErrorCode::permission_denied,
                     "OVHcloud refused the request's signature" + detail +
                         ": check the application secret (the DNS credential's secret before "
                         "':') is the one of its application_key");
  }
  if (code == "INVALID_KEY" || status == 401) {
    return makeError(ErrorCode::permission_denied,
                     "OVHcloud does not know the application key" + detail +
                         ": check the DNS credential's application_key, and that api_url is the "
                         "API of the region it was created in");
  }
  if (code == "NOT_CREDENTIAL") {
    return makeError(ErrorCode::permission_denied,
                     "OVHcloud does not know the consumer key" + detail +
                         ": check the consumer key (the DNS credential's secret after ':')");
  }
  if (code == "INVALID_CREDENTIAL") {
    return makeError(ErrorCode::permission_denied,
                     "OVHcloud refused the consumer key" + detail +
                         ": it is not validated yet, expired or revoked; validate it, or create a "
                         "new one and update the DNS credential's secret");
  }
  if (code == "NOT_GRANTED_CALL" || status == 403) {
    return makeError(ErrorCode::permission_denied,
                     "OVHcloud refused the call to the consumer key" + detail +
                         ": its access rules must allow GET, POST and DELETE on /domain/zone/*");
  }
  if (code == "QUERY_TIME_OUT") {
    return makeError(ErrorCode::unavailable,
                     "OVHcloud refused the request's time even with its "
                     "own clock read again" +
                         detail);
  }
  if (status == 404) {
    return makeError(ErrorCode::failed_precondition,
                     "OVHcloud has no DNS zone " + zone + " in this account" + detail +
                         ": check that the zone is managed there, and the credential's api_url");
  }
  if (status == 429) {
    return makeError(ErrorCode::unavailable,
                     "OVHcloud's rate limit was reached (429): the change is retried later");
  }
  if (status == 400) {
    return makeError(ErrorCode::invalid_argument, "OVHcloud refused the change" + detail);
  }
  return makeError(ErrorCode::unavailable, "OVHcloud answered" + detail);
}

}  // namespace

OvhDnsProvider::OvhDnsProvider(OvhSettings settings) : settings_(std::move(settings)) {}

OvhDnsProvider::~OvhDnsProvider() = default;

domain::Status OvhDnsProvider::validate(const OvhSettings& s) {
  const auto& url = s.api_url;
  if (url.find("://") == std::string::npos || !common::isAllowedHttpUrl(url)) {
    return bad("api_url must be an https URL (http only to a loopback host)");
  }
  if (url.find_first_of("?#@") != std::string::npos) {
    return bad("api_url must be the API's base address, such as " +
               std::string(OvhSettings::kApiUrl) + " (no query or user)");
  }
  if (!alnum(s.application_key)) {
    return bad("application_key must be the application key OVHcloud gave (letters and digits)");
  }
  if (s.application_secret.empty()) return bad("the application secret is missing");
  if (!secretWord(s.application_secret)) {
    return bad("the application secret must be the secret alone, without spaces or ':'");
  }
  if (s.consumer_key.empty()) return bad("the consumer key is missing");
  if (!secretWord(s.consumer_key)) {
    return bad("the consumer key must be the key alone, without spaces or ':'");
  }
  if (s.max_retries < 0) return bad("max_retries must be 0 or more");
  return {};
}

domain::Result<std::pair<std::string, std::string>> OvhDnsProvider::splitSecret(
    const std::string& secret) {
  const std::string form = "<application secret>:<consumer key>";
  if (secret.empty()) return bad("the secret is missing: give it as " + form);
  const auto colon = secret.find(':');
  if (colon == std::string::npos || secret.find(':', colon + 1) != std::string::npos) {
    return bad(
        "the secret must be the application secret and the consumer key joined by one "
        "':', as " +
        form);
  }
  std::pair<std::string, std::string> out{secret.substr(0, colon), secret.substr(colon + 1)};
  if (out.first.empty() || out.second.empty()) {
    return bad("the secret needs both the application secret and the consumer key, as " + form);
  }
  if (!secretWord(out.first) || !secretWord(out.second)) {
    return bad("the secret must be " + form + " without spaces or line breaks");
  }
  return out;
}

domain::Result<OvhDnsProvider::Answer> OvhDnsProvider::send(std::string_view method,
                                                            const std::string& target,
                                                            const std::string& body, bool sign) {
  const std::string url = settings_.api_url + target;
  const std::vector<std::string> secrets = {settings_.application_secret, settings_.consumer_key};
  for (int attempt = 0;; ++attempt) {
    common::HttpRequest request;
    request.url = url;
    request.headers = {"Accept: application/json"};
    if (sign) {
      auto offset = clockOffset(false);
      if (!offset) return offset.error();
      // Signed with the exact URL, body and timestamp sent.
      const std::string stamp = std::to_string(nowSeconds() + *offset);
      const std::string hash =
          sha1Hex(settings_.application_secret + "+" + settings_.consumer_key + "+" +
                  std::string(method) + "+" + url + "+" + body + "+" + stamp);
      if (hash.empty()) {
        return makeError(ErrorCode::internal,
                         "the request to OVHcloud could not be signed "
                         "(SHA-1 is not available)");
      }
      request.headers.push_back("X-Ovh-Application: " + settings_.application_key);
      request.headers.push_back("X-Ovh-Consumer: " + settings_.consumer_key);
      request.headers.push_back("X-Ovh-Timestamp: " + stamp);
      request.headers.push_back("X-Ovh-Signature: $1$" + hash);
    }
    // A body is JSON; without one, none is declared (libcurl would name a form).
    request.headers.emplace_back(body.empty() ? "Content-Type:"
                                              : "Content-Type: application/json;charset=utf-8");
    request.body = body;
    request.ca_pem = settings_.ca_pem;
    request.timeout = settings_.timeout;
    request.response_limit = 4 * 1024 * 1024;
    request.secrets = secrets;
    request.outbound = settings_.outbound.get();
    auto answer = method == "GET" ? common::getHttp(request) : common::sendHttp(method, request);
    if (!answer) return answer.error();
    if (answer->status == 429 && attempt < settings_.max_retries) {
      const long long wait =
          answer->retry_after_seconds > 0 ? answer->retry_after_seconds : (1LL << attempt);
      std::this_thread::sleep_for(std::chrono::seconds{std::clamp(wait, 1LL, 10LL)});
      continue;
    }
    Answer out{answer->status, {}, {}, {}};
    boost::system::error_code ec;
    out.doc = json::parse(answer->body, ec);
    if (ec) out.doc = nullptr;
    if (answer->status >= 300 && out.doc.is_object()) {
      out.code = jsonText(out.doc.as_object(), "errorCode").substr(0, 60);
      out.message = common::maskSecrets(jsonText(out.doc.as_object(), "message"), secrets);
      if (out.message.size() > 200) out.message.resize(200);
    }
    return out;
  }
}

domain::Result<OvhDnsProvider::Answer> OvhDnsProvider::call(std::string_view method,
                                                            const std::string& target,
                                                            const std::string& body) {
  auto answer = send(method, target, body, true);
  if (!answer || answer->code != "QUERY_TIME_OUT") return answer;
  // The server's clock moved from what was read: read it again, and try once more.
  if (auto offset = clockOffset(true); !offset) return offset.error();
  return send(method, target, body, true);
}

domain::Result<long long> OvhDnsProvider::clockOffset(bool again) {
  {
    const std::lock_guard lock(mutex_);
    if (offsetKnown_ && !again) return offset_;
  }
  const long long before = nowSeconds();
  auto answer = send("GET", "/auth/time", {}, false);
  if (!answer) return answer.error();
  if (answer->status != 200 || !(answer->doc.is_int64() || answer->doc.is_uint64())) {
    return makeError(ErrorCode::unavailable,
                     "OVHcloud's clock could not be read (GET /auth/time answered " +
                         std::to_string(answer->status) +
                         "): check the DNS credential's api_url, such as " +
                         std::string(OvhSettings::kApiUrl));
  }
  const long long server = answer->doc.is_int64() ? answer->doc.as_int64()
                                                  : static_cast<long long>(answer->doc.as_uint64());
  const std::lock_guard lock(mutex_);
  offset_ = server - before;
  offsetKnown_ = true;
  return offset_;
}

domain::Result<std::vector<std::string>> OvhDnsProvider::zoneOf(const std::string& zone) {
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = zones_.find(zone); it != zones_.end()) return it->second;
  }
  auto answer = call("GET", "/domain/zone/" + zone);
  if (!answer) return answer.error();
  if (answer->status != 200) return refusal(answer->status, answer->code, answer->message, zone);
  if (!answer->doc.is_object()) {
    return makeError(ErrorCode::unavailable,
                     "OVHcloud answered the zone " + zone + " without its details");
  }
  std::vector<std::string> servers;
  if (const auto* ns = answer->doc.as_object().if_contains("nameServers");
      ns != nullptr && ns->is_array()) {
    for (const auto& n : ns->as_array()) {
      if (n.is_string()) servers.push_back(relative(std::string(n.as_string())));
    }
  }
  const std::lock_guard lock(mutex_);
  zones_[zone] = servers;
  return servers;
}

domain::Result<std::vector<OvhDnsProvider::Record>> OvhDnsProvider::txtRecords(
    const std::string& zone, const std::string& sub) {
  auto ids = call("GET", "/domain/zone/" + zone +
                             "/record?fieldType=TXT&subDomain=" + domain::percentEncode(sub));
  if (!ids) return ids.error();
  if (ids->status != 200) return refusal(ids->status, ids->code, ids->message, zone);
  if (!ids->doc.is_array()) {
    return makeError(ErrorCode::unavailable, "OVHcloud answered a record list without ids");
  }
  if (ids->doc.as_array().size() > kMaxRecords) {
    return makeError(ErrorCode::unavailable,
                     "OVHcloud lists more than " + std::to_string(kMaxRecords) +
                         " TXT records for one name in zone " + zone + ": remove the stale ones");
  }
  std::vector<Record> out;
  for (const auto& v : ids->doc.as_array()) {
    const std::string id = idOf(v);
    if (!numericId(id)) {
      return makeError(ErrorCode::unavailable, "OVHcloud listed a record without a valid id");
    }
    auto answer = call("GET", "/domain/zone/" + zone + "/record/" + id);
    if (!answer) return answer.error();
    if (answer->status == 404) continue;  // deleted meanwhile
    if (answer->status != 200) return refusal(answer->status, answer->code, answer->message, zone);
    if (!answer->doc.is_object()) continue;
    const auto& o = answer->doc.as_object();
    // The list filters by subDomain; an empty filter (the zone itself) may list them all.
    if (jsonText(o, "fieldType") != "TXT" || lowered(jsonText(o, "subDomain")) != sub) continue;
    out.push_back({id, unquote(jsonText(o, "target"))});  // OVH quotes TXT targets
  }
  return out;
}

domain::Status OvhDnsProvider::publish(const std::string& zone, bool changed) {
  {
    const std::lock_guard lock(mutex_);
    if (!changed && unpublished_.count(zone) == 0) return {};
    unpublished_.insert(zone);
  }
  auto answer = call("POST", "/domain/zone/" + zone + "/refresh");
  if (!answer) return answer.error();
  if (answer->status != 200 && answer->status != 204) {
    return refusal(answer->status, answer->code, answer->message, zone);
  }
  const std::lock_guard lock(mutex_);
  unpublished_.erase(zone);
  return {};
}

domain::Status OvhDnsProvider::present(const ports::TxtRecord& record) {
  if (auto ok = checkRecord(record); !ok) return ok;
  const std::string zone = lowered(relative(record.zone));
  const std::string name = lowered(relative(record.name));
  if (auto servers = zoneOf(zone); !servers) return servers.error();
  const std::string sub =
      name == zone ? std::string() : name.substr(0, name.size() - zone.size() - 1);
  const auto lock = lockName(record.name);
  auto now = txtRecords(zone, sub);
  if (!now) return now.error();
  const bool there = std::any_of(now->begin(), now->end(),
                                 [&](const Record& r) { return r.value == record.value; });
  if (!there) {
    const json::object body{{"fieldType", "TXT"},
                            {"subDomain", sub},
                            {"target", record.value},
                            {"ttl", std::max(record.ttl_seconds, 60)}};
    auto answer = call("POST", "/domain/zone/" + zone + "/record", json::serialize(body));
    if (!answer) return answer.error();
    if (answer->status != 200) return refusal(answer->status, answer->code, answer->message, zone);
  }
  return publish(zone, !there);
}

domain::Status OvhDnsProvider::cleanup(const ports::TxtRecord& record) {
  if (auto ok = checkRecord(record); !ok) return ok;
  const std::string zone = lowered(relative(record.zone));
  const std::string name = lowered(relative(record.name));
  if (auto servers = zoneOf(zone); !servers) return servers.error();
  const std::string sub =
      name == zone ? std::string() : name.substr(0, name.size() - zone.size() - 1);
  const auto lock = lockName(record.name);
  auto now = txtRecords(zone, sub);
  if (!now) return now.error();
  bool changed = false;
  for (const auto& r : *now) {
    if (r.value != record.value) continue;
    auto answer = call("DELETE", "/domain/zone/" + zone + "/record/" + r.id);
    if (!answer) return answer.error();
    if (answer->status != 200 && answer->status != 204 && answer->status != 404) {
      return refusal(answer->status, answer->code, answer->message, zone);  // 404: gone already
    }
    changed = true;
  }
  return publish(zone, changed);
}

domain::Status OvhDnsProvider::waitVisible(const ports::TxtRecord& record,
                                           domain::Duration timeout) {
  if (auto ok = checkRecord(record); !ok) return ok;
  const std::string zone = lowered(relative(record.zone));
  std::vector<std::string> servers = settings_.check_servers;
  if (servers.empty()) {
    auto listed = zoneOf(zone);
    if (!listed) return listed.error();
    servers = *listed;
  }
  if (servers.empty()) {
    return makeError(
        ErrorCode::failed_precondition,
        "OVHcloud lists no name servers for zone " + zone + ": set the credential's check_servers");
  }
  std::shared_ptr<Rfc2136DnsProvider> checker;
  {
    const std::lock_guard lock(mutex_);
    auto& slot = checkers_[zone];
    if (!slot) {
      slot = Rfc2136DnsProvider::visibilityChecker(servers, settings_.timeout,
                                                   settings_.poll_interval, settings_.outbound);
    }
    checker = slot;
  }
  return checker->waitVisible(record, timeout);
}

}  // namespace certsteward::adapters::dns
