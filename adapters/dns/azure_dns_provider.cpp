// Azure DNS through Azure Resource Manager, signed in with a service principal, for DNS-01.
#include <certsteward/adapters/dns/azure_dns_provider.hpp>

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

namespace {

constexpr const char* kApiVersion = "2018-05-01";
constexpr int kWriteAttempts = 5;  // a set another writer keeps changing (412) is read again

bool isGuid(const std::string& id) {
  if (id.size() != 36) return false;
  for (std::size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (dash ? c != '-' : !hex) return false;
  }
  return true;
}

bool isResourceGroup(const std::string& name) {
  return !name.empty() && name.size() <= 90 && name.back() != '.' &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || c == '.' || c == '(' || c == ')';
         });
}

// An address setting: https (http only to a loopback host), no query, fragment or user.
domain::Status checkBase(const std::string& url, const char* key, const char* example) {
  if (url.find("://") == std::string::npos || !common::isAllowedHttpUrl(url)) {
    return makeError(ErrorCode::invalid_argument,
                     std::string(key) + " must be an https URL (http only to a loopback host)");
  }
  if (url.find_first_of("?#@") != std::string::npos) {
    return makeError(
        ErrorCode::invalid_argument,
        std::string(key) + " must be an address such as " + example + " (no query or user)");
  }
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

// The record set's name within the zone (both lower case, without the trailing dot): relative,
// "@" for the zone itself.
std::string setNameOf(const std::string& name, const std::string& zone) {
  if (name == zone) return "@";
  return name.substr(0, name.size() - zone.size() - 1);
}

// The scope a token for ARM is asked with: ARM's own for a national cloud's management.* address,
// else the public cloud's (a gateway or a test server stands in for it).
std::string armScope(const std::string& armUrl) {
  constexpr std::string_view https = "https://management.";
  if (armUrl.starts_with(https)) {
    const auto end = armUrl.find('/', https.size());
    return armUrl.substr(0, end) + "/.default";
  }
  return std::string(AzureSettings::kArmUrl) + "/.default";
}

// Text that goes into a header line: printable, no line breaks, bounded.
bool headerSafe(const std::string& text, std::size_t limit) {
  return !text.empty() && text.size() <= limit &&
         std::all_of(text.begin(), text.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

// The expiry (seconds) of a token answer: expires_in, a number or a string of digits.
std::int64_t expiresIn(const json::object& doc) {
  const auto* v = doc.if_contains("expires_in");
  if (v != nullptr && v->is_int64()) return v->as_int64();
  const std::string text = jsonText(doc, "expires_in");
  if (text.empty() || text.size() > 9 ||
      !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return 0;
  return std::stoll(text);
}

// What Entra ID's refusal of the sign-in means, in words that say what to fix (never the secret).
domain::Error tokenRefusal(long status, const json::object& doc, const std::string& tenant,
                           const std::vector<std::string>& secrets) {
  const std::string error = jsonText(doc, "error").substr(0, 60);
  std::string description = jsonText(doc, "error_description");
  description =
      description.substr(0, std::min(description.find_first_of("\r\n"), std::size_t{300}));
  std::int64_t aadsts = 0;
  if (const auto* codes = doc.if_contains("error_codes"); codes != nullptr && codes->is_array() &&
                                                          !codes->as_array().empty() &&
                                                          codes->as_array().front().is_int64()) {
    aadsts = codes->as_array().front().as_int64();
  }
  const std::string what =
      common::maskSecrets(std::to_string(status) + (error.empty() ? "" : " " + error) +
                              (description.empty() ? "" : ": " + description),
                          secrets);
  if (status == 429 || status >= 500) {
    return makeError(ErrorCode::unavailable,
                     "Azure's sign-in service (Microsoft Entra ID) answered " + what +
                         ": the change is retried later");
  }
  if (error == "invalid_client") {
    return makeError(ErrorCode::permission_denied,
                     "Azure (Microsoft Entra ID) refused the client secret (" + what +
                         "): check the DNS credential's secret — the client secret's Value, not "
                         "its Secret ID — and that it has not expired");
  }
  if (error == "unauthorized_client" || aadsts == 700016) {
    return makeError(ErrorCode::permission_denied,
                     "Azure (Microsoft Entra ID) does not know the app (" + what +
                         "): check the DNS credential's client_id, the app registration's "
                         "Application (client) ID in tenant " +
                         tenant);
  }
  if (aadsts == 90002 || aadsts == 90023 || aadsts == 900023) {
    return makeError(ErrorCode::permission_denied,
                     "Azure (Microsoft Entra ID) does not know the tenant (" + what +
                         "): check the DNS credential's tenant_id, the Directory (tenant) ID");
  }
  if (status >= 400 && status < 500) {
    return makeError(ErrorCode::permission_denied,
                     "Azure (Microsoft Entra ID) refused to sign the app in (" + what +
                         "): check the DNS credential's tenant_id, client_id and secret, and "
                         "authority_url");
  }
  return makeError(ErrorCode::unavailable,
                   "Azure's sign-in service (Microsoft Entra ID) answered " + what);
}

// ARM's error, {"error": {"code", "message"}} or (a record set's 404) {"code", "message"}.
std::string armCode(const json::object& doc) {
  const auto* error = doc.if_contains("error");
  return error != nullptr && error->is_object() ? jsonText(error->as_object(), "code")
                                                : jsonText(doc, "code");
}

std::string armMessage(const json::object& doc) {
  const auto* error = doc.if_contains("error");
  std::string message = error != nullptr && error->is_object()
                            ? jsonText(error->as_object(), "message")
                            : jsonText(doc, "message");
  if (message.size() > 300) message.resize(300);
  return message;
}

struct Where {
  const AzureSettings& settings;
  const std::string& zone;
};

// What an ARM answer other than success means, in words that say what to fix (never a secret).
domain::Error refusal(long status, const json::object& doc, const Where& at,
                      const std::vector<std::string>& secrets) {
  const std::string code = armCode(doc).substr(0, 80);
  const std::string message = armMessage(doc);
  const std::string what =
      common::maskSecrets(std::to_string(status) + (code.empty() ? "" : " " + code) +
                              (message.empty() ? "" : ": " + message),
                          secrets);
  const auto& s = at.settings;
  if (status == 401) {
    return makeError(ErrorCode::permission_denied,
                     "Azure Resource Manager refused the app's access token (" + what +
                         "): check the DNS credential's tenant_id (the tenant of subscription " +
                         s.subscription_id +
                         "), and that authority_url and arm_url are of the same Azure cloud");
  }
  if (status == 403) {
    return makeError(ErrorCode::permission_denied,
                     "Azure refused the app " + s.client_id + " (" + what +
                         "): give it the DNS Zone Contributor role on the zone " + at.zone +
                         " (or on its resource group " + s.resource_group +
                         "), and check the credential's subscription_id");
  }
  if (status == 404 && code == "SubscriptionNotFound") {
    return makeError(ErrorCode::failed_precondition,
                     "Azure shows the app no subscription " + s.subscription_id +
                         ": check the DNS credential's subscription_id, and that the app has a "
                         "role in that subscription");
  }
  if (status == 404 && code == "ResourceGroupNotFound") {
    return makeError(ErrorCode::failed_precondition,
                     "Azure has no resource group " + s.resource_group + " in subscription " +
                         s.subscription_id +
                         ": check the DNS credential's resource_group (the zone's resource group)");
  }
  if (status == 404) {
    return makeError(ErrorCode::failed_precondition,
                     "Azure has no DNS zone " + at.zone + " in resource group " + s.resource_group +
                         ": create it there (Azure portal, DNS zones), or check the credential's "
                         "resource_group and zone_name (" +
                         what + ")");
  }
  if (status == 429) {
    return makeError(ErrorCode::unavailable,
                     "Azure Resource Manager is throttling this subscription (" + what +
                         "): the change is retried later");
  }
  if (status == 400 && code == "InvalidSubscriptionId") {
    return makeError(ErrorCode::invalid_argument,
                     "Azure refused the subscription id (" + what +
                         "): check the DNS credential's subscription_id");
  }
  if (status == 400 || status == 409 || status == 415) {
    return makeError(ErrorCode::invalid_argument, "Azure refused the change (" + what + ")");
  }
  return makeError(ErrorCode::unavailable, "Azure Resource Manager answered " + what);
}

}  // namespace

struct AzureDnsProvider::RecordSet {
  bool exists = false;
  std::string etag;
  std::int64_t ttl = 0;             // 0: none given
  json::array entries;              // TXTRecords as ARM gave them: [{"value": [strings]}]
  json::value metadata;             // kept as it is (null: none)
  std::vector<std::string> values;  // each entry's strings joined
};

AzureDnsProvider::AzureDnsProvider(AzureSettings settings) : settings_(std::move(settings)) {}

AzureDnsProvider::~AzureDnsProvider() = default;

domain::Status AzureDnsProvider::validate(const AzureSettings& s) {
  if (auto ok = checkBase(s.authority_url, "authority_url", AzureSettings::kAuthorityUrl); !ok)
    return ok;
  if (auto ok = checkBase(s.arm_url, "arm_url", AzureSettings::kArmUrl); !ok) return ok;
  if (!isGuid(s.tenant_id)) {
    return makeError(ErrorCode::invalid_argument,
                     "tenant_id must be the Directory (tenant) ID, a GUID such as "
                     "72f988bf-86f1-41af-91ab-2d7cd011db47");
  }
  if (!isGuid(s.client_id)) {
    return makeError(ErrorCode::invalid_argument,
                     "client_id must be the app registration's Application (client) ID, a GUID");
  }
  if (s.client_secret.empty())
    return makeError(ErrorCode::invalid_argument, "the client secret is missing");
  if (s.client_secret.find_first_of(" \t\r\n") != std::string::npos) {
    return makeError(ErrorCode::invalid_argument,
                     "the client secret must be the secret's value alone, without spaces");
  }
  if (!isGuid(s.subscription_id)) {
    return makeError(ErrorCode::invalid_argument,
                     "subscription_id must be the zone's subscription ID, a GUID");
  }
  if (!isResourceGroup(s.resource_group)) {
    return makeError(ErrorCode::invalid_argument,
                     "resource_group must be the zone's resource group: 1 to 90 letters, digits, "
                     "'-', '_', '.', '(' or ')', not ending in '.'");
  }
  const std::string zone = relative(s.zone_name);
  if (!s.zone_name.empty() &&
      (!plainName(zone) || zone.find('*') != std::string::npos || zone.front() == '.')) {
    return makeError(ErrorCode::invalid_argument,
                     "zone_name must be the Azure DNS zone's name, such as example.com, or left "
                     "empty for the project's zone");
  }
  return {};
}

domain::Result<std::string> AzureDnsProvider::accessToken() {
  {
    const std::lock_guard lock(mutex_);
    if (!token_.empty() && std::chrono::steady_clock::now() < tokenUntil_) return token_;
  }
  return fetchToken();
}

domain::Result<std::string> AzureDnsProvider::fetchToken() {
  const std::string encodedSecret = domain::percentEncode(settings_.client_secret);
  common::HttpRequest request;
  request.url = settings_.authority_url + "/" + settings_.tenant_id + "/oauth2/v2.0/token";
  request.headers = {"Content-Type: application/x-www-form-urlencoded", "Accept: application/json"};
  request.body =
      "grant_type=client_credentials&client_id=" + domain::percentEncode(settings_.client_id) +
      "&client_secret=" + encodedSecret +
      "&scope=" + domain::percentEncode(armScope(settings_.arm_url));
  request.ca_pem = settings_.ca_pem;
  request.timeout = settings_.timeout;
  request.response_limit = 4 * 1024 * 1024;
  request.secrets = {settings_.client_secret, encodedSecret};
  request.outbound = settings_.outbound.get();
  const auto requested = std::chrono::steady_clock::now();
  auto answer = callJsonApi("POST", request, settings_.max_retries);
  if (!answer) return answer.error();
  if (answer->status != 200)
    return tokenRefusal(answer->status, answer->doc, settings_.tenant_id, request.secrets);
  std::string token = jsonText(answer->doc, "access_token");
  if (!headerSafe(token, 16 * 1024)) {
    return makeError(ErrorCode::unavailable,
                     "Azure's sign-in service answered without a usable access token");
  }
  // Kept until a minute before it expires (one that lives a minute or less: used once).
  const auto lifetime =
      std::chrono::seconds{std::max<std::int64_t>(expiresIn(answer->doc) - 60, 0)};
  const std::lock_guard lock(mutex_);
  token_ = token;
  tokenUntil_ = requested + lifetime;
  return token;
}

domain::Result<JsonAnswer> AzureDnsProvider::call(std::string_view method, const std::string& path,
                                                  const std::string& body,
                                                  const std::string& condition) {
  for (bool renewed = false;; renewed = true) {
    auto token = accessToken();
    if (!token) return token.error();
    auto request =
        bearerJsonRequest(settings_.arm_url + path + "?api-version=" + kApiVersion, *token, body,
                          settings_.ca_pem, settings_.timeout, settings_.outbound.get());
    request.secrets.push_back(settings_.client_secret);
    if (!condition.empty()) request.headers.push_back(condition);
    auto answer = callJsonApi(method, request, settings_.max_retries);
    if (!answer) return answer.error();
    if (answer->status != 401 || renewed) return answer;
    // Expired or revoked before its time: one new token, one more try.
    const std::lock_guard lock(mutex_);
    if (token_ == *token) token_.clear();
  }
}

domain::Result<AzureDnsProvider::Zone> AzureDnsProvider::zoneOf(const ports::TxtRecord& record) {
  const std::string wanted =
      lowered(relative(settings_.zone_name.empty() ? record.zone : settings_.zone_name));
  const std::string name = lowered(relative(record.name));
  if (name != wanted && !name.ends_with("." + wanted)) {
    return makeError(ErrorCode::invalid_argument, "the name " + name +
                                                      " is not in the Azure DNS zone " + wanted +
                                                      " (the credential's zone_name)");
  }
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = zones_.find(wanted); it != zones_.end()) return it->second;
  }
  auto answer = call("GET", "/subscriptions/" + settings_.subscription_id + "/resourceGroups/" +
                                pathSegment(settings_.resource_group) +
                                "/providers/Microsoft.Network/dnsZones/" + pathSegment(wanted));
  if (!answer) return answer.error();
  if (answer->status != 200) {
    return refusal(answer->status, answer->doc, {settings_, wanted}, {settings_.client_secret});
  }
  Zone zone{wanted, {}};
  const auto* properties = answer->doc.if_contains("properties");
  const auto* servers = properties != nullptr && properties->is_object()
                            ? properties->as_object().if_contains("nameServers")
                            : nullptr;
  if (servers != nullptr && servers->is_array()) {
    for (const auto& n : servers->as_array()) {
      if (n.is_string() && !n.as_string().empty())
        zone.name_servers.push_back(relative(std::string(n.as_string())));
    }
  }
  const std::lock_guard lock(mutex_);
  zones_[wanted] = zone;
  return zone;
}

domain::Result<AzureDnsProvider::RecordSet> AzureDnsProvider::recordSet(
    const Zone& zone, const std::string& setName) {
  auto answer = call("GET", "/subscriptions/" + settings_.subscription_id + "/resourceGroups/" +
                                pathSegment(settings_.resource_group) +
                                "/providers/Microsoft.Network/dnsZones/" + pathSegment(zone.name) +
                                "/TXT/" + pathSegment(setName));
  if (!answer) return answer.error();
  RecordSet out;
  const std::string code = armCode(answer->doc);
  if (answer->status == 404 && (code == "NotFound" || code.empty())) return out;  // no set yet
  if (answer->status != 200) {
    return refusal(answer->status, answer->doc, {settings_, zone.name}, {settings_.client_secret});
  }
  out.exists = true;
  out.etag = jsonText(answer->doc, "etag");
  if (!headerSafe(out.etag, 200)) {
    return makeError(ErrorCode::unavailable, "Azure answered a record set without a valid etag");
  }
  const auto* properties = answer->doc.if_contains("properties");
  if (properties == nullptr || !properties->is_object()) {
    return makeError(ErrorCode::unavailable, "Azure answered a record set without its properties");
  }
  const auto& p = properties->as_object();
  if (const auto* ttl = p.if_contains("TTL"); ttl != nullptr && ttl->is_int64())
    out.ttl = ttl->as_int64();
  if (const auto* metadata = p.if_contains("metadata"); metadata != nullptr)
    out.metadata = *metadata;
  if (const auto* records = p.if_contains("TXTRecords"); records != nullptr && records->is_array())
    out.entries = records->as_array();
  for (const auto& entry : out.entries) {
    const auto* strings = entry.is_object() ? entry.as_object().if_contains("value") : nullptr;
    std::string joined;
    if (strings != nullptr && strings->is_array()) {
      for (const auto& part : strings->as_array()) {
        if (part.is_string()) joined += std::string(part.as_string());
      }
    }
    out.values.push_back(std::move(joined));
  }
  return out;
}

domain::Status AzureDnsProvider::change(const ports::TxtRecord& record, bool add) {
  if (auto ok = checkRecord(record); !ok) return ok;
  auto zone = zoneOf(record);
  if (!zone) return zone.error();
  const std::string setName = setNameOf(lowered(relative(record.name)), zone->name);
  const std::string path = "/subscriptions/" + settings_.subscription_id + "/resourceGroups/" +
                           pathSegment(settings_.resource_group) +
                           "/providers/Microsoft.Network/dnsZones/" + pathSegment(zone->name) +
                           "/TXT/" + pathSegment(setName);
  const auto lock = lockName(record.name);
  for (int attempt = 0; attempt < kWriteAttempts; ++attempt) {
    auto set = recordSet(*zone, setName);
    if (!set) return set.error();
    const bool there =
        std::find(set->values.begin(), set->values.end(), record.value) != set->values.end();
    if (there == add) return {};  // present already, or gone already
    json::array entries;
    for (std::size_t i = 0; i < set->entries.size(); ++i) {
      if (set->values[i] != record.value) entries.push_back(set->entries[i]);
    }
    if (add) entries.push_back(json::object{{"value", json::array{record.value}}});
    const std::string condition =
        set->exists ? "If-Match: " + set->etag : std::string("If-None-Match: *");
    const bool last = entries.empty();  // the last value goes: the set goes
    std::string body;
    if (!last) {
      json::object properties;
      properties["TTL"] = set->ttl > 0 ? set->ttl : std::max<std::int64_t>(record.ttl_seconds, 1);
      properties["TXTRecords"] = std::move(entries);
      if (set->metadata.is_object()) properties["metadata"] = set->metadata;
      body = json::serialize(json::object{{"properties", std::move(properties)}});
    }
    auto answer = call(last ? "DELETE" : "PUT", path, body, condition);
    if (!answer) return answer.error();
    if (answer->status == 200 || answer->status == 201 || answer->status == 204) return {};
    if (answer->status != 412) {
      return refusal(answer->status, answer->doc, {settings_, zone->name},
                     {settings_.client_secret});
    }
    // Another writer changed the set since it was read: read it again.
    std::this_thread::sleep_for(std::min(settings_.poll_interval, std::chrono::milliseconds{500}));
  }
  return makeError(ErrorCode::unavailable,
                   "Azure's TXT record set " + setName + " in zone " + zone->name +
                       " kept changing while it was written (412 PreconditionFailed " +
                       std::to_string(kWriteAttempts) + " times): the change is retried later");
}

domain::Status AzureDnsProvider::present(const ports::TxtRecord& record) {
  return change(record, true);
}

domain::Status AzureDnsProvider::cleanup(const ports::TxtRecord& record) {
  return change(record, false);
}

domain::Status AzureDnsProvider::waitVisible(const ports::TxtRecord& record,
                                             domain::Duration timeout) {
  if (auto ok = checkRecord(record); !ok) return ok;
  auto zone = zoneOf(record);
  if (!zone) return zone.error();
  const auto& servers =
      settings_.check_servers.empty() ? zone->name_servers : settings_.check_servers;
  if (servers.empty()) {
    return makeError(ErrorCode::failed_precondition, "Azure lists no name servers for zone " +
                                                         zone->name +
                                                         ": set the credential's check_servers");
  }
  std::shared_ptr<Rfc2136DnsProvider> checker;
  {
    const std::lock_guard lock(mutex_);
    auto& slot = checkers_[zone->name];
    if (!slot) {
      slot = Rfc2136DnsProvider::visibilityChecker(servers, settings_.timeout,
                                                   settings_.poll_interval, settings_.outbound);
    }
    checker = slot;
  }
  return checker->waitVisible(record, timeout);
}

}  // namespace certsteward::adapters::dns
