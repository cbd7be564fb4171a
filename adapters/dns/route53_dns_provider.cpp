// Amazon Route 53's API, for DNS-01.
#include <certsteward/adapters/dns/route53_dns_provider.hpp>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <algorithm>
#include <ctime>
#include <thread>

#include <certsteward/adapters/common/aws_sigv4.hpp>
#include <certsteward/adapters/common/http_client.hpp>
#include <certsteward/adapters/dns/dns_names.hpp>
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>
#include <certsteward/domain/template.hpp>

namespace certsteward::adapters::dns {

using domain::ErrorCode;
using domain::makeError;

namespace {

constexpr const char* kVersion = "/2013-04-01";
constexpr int kMaxPages = 20;  // bounds every walk through a paged answer

struct DocFree {
  void operator()(xmlDoc* d) const { xmlFreeDoc(d); }
};
using Doc = std::unique_ptr<xmlDoc, DocFree>;

// The answer as a document: no network, and none with a DTD (Route 53 never sends one; an
// entity it declared would be expanded when text is read, a memory bomb from a hostile server);
// nullptr when not such XML.
Doc parseXml(const std::string& body) {
  if (body.empty() || body.size() > 4 * 1024 * 1024) return nullptr;
  Doc doc(xmlReadMemory(body.data(), static_cast<int>(body.size()), nullptr, nullptr,
                        XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING));
  if (doc && (doc->intSubset != nullptr || doc->extSubset != nullptr)) return nullptr;
  return doc;
}

// The first child element of `node` with local name `name` (namespaces ignored), or nullptr.
const xmlNode* child(const xmlNode* node, std::string_view name) {
  if (node == nullptr) return nullptr;
  for (const xmlNode* c = node->children; c != nullptr; c = c->next) {
    if (c->type == XML_ELEMENT_NODE && name == reinterpret_cast<const char*>(c->name)) return c;
  }
  return nullptr;
}

std::vector<const xmlNode*> children(const xmlNode* node, std::string_view name) {
  std::vector<const xmlNode*> out;
  if (node == nullptr) return out;
  for (const xmlNode* c = node->children; c != nullptr; c = c->next) {
    if (c->type == XML_ELEMENT_NODE && name == reinterpret_cast<const char*>(c->name))
      out.push_back(c);
  }
  return out;
}

std::string textOf(const xmlNode* node) {
  if (node == nullptr) return {};
  xmlChar* content = xmlNodeGetContent(node);
  if (content == nullptr) return {};
  std::string out(reinterpret_cast<const char*>(content));
  xmlFree(content);
  return out;
}

std::string amzDate(std::chrono::system_clock::time_point at) {
  const std::time_t t = std::chrono::system_clock::to_time_t(at);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char out[17];
  std::strftime(out, sizeof out, "%Y%m%dT%H%M%SZ", &utc);
  return out;
}

bool plainWord(const std::string& s, bool upperOnly) {
  return !s.empty() && s.size() <= 128 && std::all_of(s.begin(), s.end(), [&](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (!upperOnly && ((c >= 'a' && c <= 'z') || c == '-'));
  });
}

// arn:aws:iam::<12 digits>:role/<path and name> (also the aws-cn and aws-us-gov partitions).
bool isRoleArn(const std::string& arn) {
  for (const std::string prefix : {"arn:aws:iam::", "arn:aws-cn:iam::", "arn:aws-us-gov:iam::"}) {
    if (!arn.starts_with(prefix)) continue;
    const std::string rest = arn.substr(prefix.size());
    if (rest.size() < 19 || rest.size() > 2000 || rest.compare(12, 6, ":role/") != 0) return false;
    if (!std::all_of(rest.begin(), rest.begin() + 12, [](char c) { return c >= '0' && c <= '9'; }))
      return false;
    return std::all_of(rest.begin() + 18, rest.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
             std::string_view("+=,.@_-/").find(c) != std::string_view::npos;
    });
  }
  return false;
}

const char* kPermissions =
    "check the access key id and secret, and that its IAM policy allows "
    "route53:ListHostedZonesByName, route53:GetHostedZone, route53:ListResourceRecordSets, "
    "route53:ChangeResourceRecordSets and route53:GetChange";

}  // namespace

struct Route53DnsProvider::Answer {
  long status = 0;
  Doc doc;
  std::string code;     // the error's Code, when it is an error
  std::string message;  // and its Message (bounded)
};

Route53DnsProvider::Route53DnsProvider(Route53Settings settings) : settings_(std::move(settings)) {
  // libxml2 sets itself up on first use, but not safely from two threads at once.
  static const bool parserReady = (xmlInitParser(), true);
  (void)parserReady;
  if (!settings_.check_servers.empty()) {
    checker_ = Rfc2136DnsProvider::visibilityChecker(settings_.check_servers, settings_.timeout,
                                                     settings_.poll_interval, settings_.outbound);
  }
}

Route53DnsProvider::~Route53DnsProvider() = default;

domain::Status Route53DnsProvider::validate(const Route53Settings& s) {
  const auto& url = s.api_url;
  const auto scheme = url.find("://");
  if (scheme == std::string::npos || !common::isAllowedHttpUrl(url)) {
    return makeError(ErrorCode::invalid_argument,
                     "api_url must be an https URL (http only to a loopback host)");
  }
  if (url.find_first_of("/?#@", scheme + 3) != std::string::npos) {
    return makeError(ErrorCode::invalid_argument,
                     "api_url must be the API's address only, such as " +
                         std::string(Route53Settings::kApiUrl) + " (no path, query or user)");
  }
  if (!plainWord(s.access_key_id, true) || s.access_key_id.size() < 16) {
    return makeError(ErrorCode::invalid_argument,
                     "access_key_id must be an AWS access key id (capitals and digits, such as "
                     "AKIAIOSFODNN7EXAMPLE)");
  }
  if (s.secret_access_key.empty() ||
      s.secret_access_key.find_first_of(" \t\r\n") != std::string::npos) {
    return makeError(ErrorCode::invalid_argument, "the secret access key is missing or has spaces");
  }
  if (!plainWord(s.region, false)) {
    return makeError(ErrorCode::invalid_argument, "region must be an AWS region such as us-east-1");
  }
  if (!s.role_arn.empty() && !isRoleArn(s.role_arn)) {
    return makeError(ErrorCode::invalid_argument,
                     "role_arn must be an IAM role's ARN, such as "
                     "arn:aws:iam::123456789012:role/certsteward-dns");
  }
  if (s.external_id.size() > 1224 ||
      s.external_id.find_first_of(" \t\r\n\"&") != std::string::npos) {
    return makeError(ErrorCode::invalid_argument,
                     "external_id must be at most 1,224 characters, without spaces or quotes");
  }
  const auto stsScheme = s.sts_url.find("://");
  if (stsScheme == std::string::npos || !common::isAllowedHttpUrl(s.sts_url) ||
      s.sts_url.find_first_of("/?#@", stsScheme + 3) != std::string::npos) {
    return makeError(ErrorCode::invalid_argument,
                     "sts_url must be STS's address only, such as https://sts.amazonaws.com");
  }
  if (!s.hosted_zone_id.empty() && !plainWord(s.hosted_zone_id, true)) {
    return makeError(ErrorCode::invalid_argument,
                     "hosted_zone_id must be the zone's id (capitals and digits, such as "
                     "Z1D633PJN98FT9), or left empty to find the zone by name");
  }
  return {};
}

domain::Result<Route53DnsProvider::Answer> Route53DnsProvider::call(
    const std::string& method, const std::string& path,
    const std::vector<std::pair<std::string, std::string>>& query, const std::string& body,
    Deadline deadline) {
  auto signer = credentials(deadline);
  if (!signer) return signer.error();
  return signedCall(settings_.api_url, "route53", *signer, method, path, query, body,
                    body.empty() ? std::string() : "text/xml", deadline);
}

domain::Result<Route53DnsProvider::Answer> Route53DnsProvider::signedCall(
    const std::string& base, const std::string& service, const common::AwsCredentials& credentials,
    const std::string& method, const std::string& path,
    const std::vector<std::pair<std::string, std::string>>& query, const std::string& body,
    const std::string& contentType, Deadline deadline) {
  const std::string authority = base.substr(base.find("://") + 3);
  common::SigV4Request signing;
  signing.method = method;
  signing.path = path;
  signing.query = query;
  signing.payload = body;
  std::vector<std::pair<std::string, std::string>> sorted = query;
  std::sort(sorted.begin(), sorted.end());
  std::string queryText;
  for (const auto& [name, value] : sorted) {
    queryText += (queryText.empty() ? "?" : "&") + common::awsUriEncode(name) + "=" +
                 common::awsUriEncode(value);
  }
  const std::vector<std::string> secrets = {
      settings_.secret_access_key, credentials.secret_access_key, credentials.session_token};
  for (int attempt = 0;; ++attempt) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left <= std::chrono::milliseconds::zero()) {
      return makeError(ErrorCode::unavailable, "AWS did not answer in the time given");
    }
    const std::string date = amzDate(settings_.now());
    signing.headers = {{"Host", authority}, {"X-Amz-Date", date}};
    if (!credentials.session_token.empty())
      signing.headers.emplace_back("X-Amz-Security-Token", credentials.session_token);
    if (!contentType.empty()) signing.headers.emplace_back("Content-Type", contentType);
    common::HttpRequest request;
    request.url = base + path + queryText;
    for (const auto& [name, value] : signing.headers)
      request.headers.push_back(name + ": " + value);
    request.headers.push_back(
        "Authorization: " +
        common::sigV4Authorization(signing, {settings_.region, service, date}, credentials));
    request.body = body;
    request.ca_pem = settings_.ca_pem;
    request.timeout = std::min(settings_.timeout, left);
    request.response_limit = 4 * 1024 * 1024;
    request.secrets = secrets;
    request.outbound = settings_.outbound.get();
    auto answer = method == "GET" ? common::getHttp(request) : common::sendHttp(method, request);
    if (!answer) return answer.error();
    Answer out{answer->status, parseXml(answer->body), {}, {}};
    if (answer->status < 200 || answer->status >= 300) {
      const xmlNode* root = out.doc ? xmlDocGetRootElement(out.doc.get()) : nullptr;
      const xmlNode* error = child(root, "Error");
      out.code = textOf(child(error, "Code")).substr(0, 100);
      out.message = common::maskSecrets(textOf(child(error, "Message")), secrets).substr(0, 300);
      const bool throttled = out.code == "Throttling" || out.code == "PriorRequestNotComplete" ||
                             answer->status == 429 || answer->status == 503;
      const auto pause = std::chrono::seconds{1LL << attempt};
      if (throttled && attempt < settings_.max_retries &&
          std::chrono::steady_clock::now() + pause < deadline) {
        std::this_thread::sleep_for(pause);
        continue;
      }
    } else if (!out.doc) {
      return makeError(ErrorCode::unavailable,
                       "AWS answered " + std::to_string(answer->status) + " without XML");
    }
    return out;
  }
}

domain::Result<common::AwsCredentials> Route53DnsProvider::credentials(Deadline deadline) {
  const common::AwsCredentials key{settings_.access_key_id, settings_.secret_access_key,
                                   settings_.session_token};
  if (settings_.role_arn.empty()) return key;
  {
    const std::lock_guard lock(mutex_);
    if (assumed_ && std::chrono::steady_clock::now() < assumedUntil_) return *assumed_;
  }
  constexpr int kSeconds = 900;  // STS's shortest session: the least a leaked one is worth
  std::string body = "Action=AssumeRole&DurationSeconds=" + std::to_string(kSeconds) +
                     "&RoleArn=" + common::awsUriEncode(settings_.role_arn) +
                     "&RoleSessionName=certsteward&Version=2011-06-15";
  if (!settings_.external_id.empty())
    body += "&ExternalId=" + common::awsUriEncode(settings_.external_id);
  const auto requested = std::chrono::steady_clock::now();
  auto answer = signedCall(settings_.sts_url, "sts", key, "POST", "/", {}, body,
                           "application/x-www-form-urlencoded; charset=utf-8", deadline);
  if (!answer) return answer.error();
  if (answer->status != 200) {
    const std::string detail =
        answer->code.empty()
            ? std::to_string(answer->status)
            : answer->code +
                  (answer->message.empty() ? std::string() : " (" + answer->message + ")");
    return makeError(
        answer->status == 403 || answer->status == 401 || answer->code == "AccessDenied"
            ? ErrorCode::permission_denied
            : ErrorCode::unavailable,
        "STS did not let the access key assume the role " + settings_.role_arn.substr(0, 200) +
            " (" + detail +
            "): check the role's trust policy names this key's user (and the external "
            "id), and that the user may call sts:AssumeRole on it");
  }
  const xmlNode* result = child(xmlDocGetRootElement(answer->doc.get()), "AssumeRoleResult");
  const xmlNode* issued = child(result, "Credentials");
  common::AwsCredentials role{textOf(child(issued, "AccessKeyId")),
                              textOf(child(issued, "SecretAccessKey")),
                              textOf(child(issued, "SessionToken"))};
  if (!plainWord(role.access_key_id, true) || role.secret_access_key.empty() ||
      role.session_token.empty()) {
    return makeError(ErrorCode::unavailable, "STS answered without the role's credentials");
  }
  const std::lock_guard lock(mutex_);
  assumed_ = role;
  assumedUntil_ = requested + std::chrono::seconds{kSeconds - 60};  // renewed a minute early
  return role;
}

namespace {

// What an error answer means, in words that say what to fix (never the secret).
domain::Error refusal(long status, const std::string& code, const std::string& message,
                      const std::string& zone) {
  const std::string detail =
      code.empty() ? std::string() : ": " + code + (message.empty() ? "" : " (" + message + ")");
  const std::string what = std::to_string(status) + detail;
  if (status == 401 || status == 403 || code == "SignatureDoesNotMatch" ||
      code == "InvalidClientTokenId" || code == "AccessDenied" || code == "IncompleteSignature" ||
      code == "ExpiredToken" || code == "MissingAuthenticationToken") {
    return makeError(ErrorCode::permission_denied,
                     "Route 53 refused the credentials (" + what + "): " + kPermissions);
  }
  if (code == "NoSuchHostedZone" || status == 404) {
    return makeError(ErrorCode::failed_precondition,
                     "Route 53 has no hosted zone for " + zone +
                         " under this account: check the zone's name and the credential's "
                         "hosted_zone_id (" +
                         what + ")");
  }
  if (code == "Throttling" || code == "PriorRequestNotComplete" || status == 429) {
    return makeError(ErrorCode::unavailable, "Route 53 is throttling this account (" + what +
                                                 "): the change is retried "
                                                 "later");
  }
  if (status == 400) {
    return makeError(ErrorCode::invalid_argument, "Route 53 refused the change (" + what + ")");
  }
  return makeError(ErrorCode::unavailable, "Route 53 answered " + what);
}

}  // namespace

domain::Result<std::string> Route53DnsProvider::zoneOf(const std::string& zone) {
  const std::string wanted = lowered(absolute(zone));
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = zones_.find(wanted); it != zones_.end()) return it->second;
  }
  const auto idOf = [](const xmlNode* hostedZone) {
    std::string id = textOf(child(hostedZone, "Id"));
    if (const auto slash = id.rfind('/'); slash != std::string::npos) id = id.substr(slash + 1);
    return id;
  };
  std::string found;
  if (!settings_.hosted_zone_id.empty()) {
    auto answer =
        call("GET", std::string(kVersion) + "/hostedzone/" + settings_.hosted_zone_id, {});
    if (!answer) return answer.error();
    if (answer->status != 200)
      return refusal(answer->status, answer->code, answer->message, wanted);
    const xmlNode* hostedZone = child(xmlDocGetRootElement(answer->doc.get()), "HostedZone");
    const std::string name = lowered(absolute(textOf(child(hostedZone, "Name"))));
    if (name != wanted) {
      return makeError(ErrorCode::failed_precondition,
                       "the credential's hosted_zone_id is Route 53's zone " + name.substr(0, 253) +
                           ", not " + wanted + ": give that zone's id, or leave it empty");
    }
    found = idOf(hostedZone);
  } else {
    std::vector<std::pair<std::string, std::string>> query = {{"dnsname", wanted},
                                                              {"maxitems", "100"}};
    for (int page = 0; page < kMaxPages && found.empty(); ++page) {
      auto answer = call("GET", std::string(kVersion) + "/hostedzonesbyname", query);
      if (!answer) return answer.error();
      if (answer->status != 200)
        return refusal(answer->status, answer->code, answer->message, wanted);
      const xmlNode* root = xmlDocGetRootElement(answer->doc.get());
      bool past = false;  // the list is in name order: past ours, nothing more can match
      for (const xmlNode* z : children(child(root, "HostedZones"), "HostedZone")) {
        const std::string name = lowered(absolute(textOf(child(z, "Name"))));
        if (name != wanted) {
          past = true;
          continue;
        }
        const bool isPrivate = textOf(child(child(z, "Config"), "PrivateZone")) == "true";
        if (isPrivate == settings_.private_zone) {
          found = idOf(z);
          break;
        }
      }
      if (!found.empty() || past || textOf(child(root, "IsTruncated")) != "true") break;
      query = {{"dnsname", textOf(child(root, "NextDNSName"))},
               {"hostedzoneid", textOf(child(root, "NextHostedZoneId"))},
               {"maxitems", "100"}};
    }
    if (found.empty()) {
      return makeError(ErrorCode::failed_precondition,
                       std::string("Route 53 has no ") +
                           (settings_.private_zone ? "private" : "public") + " hosted zone " +
                           wanted +
                           " under this account: create it, set private_zone to match it, or give "
                           "its hosted_zone_id");
    }
  }
  if (!plainWord(found, true)) {
    return makeError(ErrorCode::unavailable, "Route 53 answered a zone without a valid id");
  }
  const std::lock_guard lock(mutex_);
  zones_[wanted] = found;
  return found;
}

domain::Result<Route53DnsProvider::RecordSet> Route53DnsProvider::recordSet(
    const std::string& zoneId, const std::string& name, Deadline deadline) {
  auto answer = call("GET", std::string(kVersion) + "/hostedzone/" + zoneId + "/rrset",
                     {{"name", name}, {"type", "TXT"}, {"maxitems", "1"}}, {}, deadline);
  if (!answer) return answer.error();
  if (answer->status != 200) return refusal(answer->status, answer->code, answer->message, name);
  RecordSet out;
  const xmlNode* root = xmlDocGetRootElement(answer->doc.get());
  for (const xmlNode* set : children(child(root, "ResourceRecordSets"), "ResourceRecordSet")) {
    if (lowered(absolute(textOf(child(set, "Name")))) != name ||
        textOf(child(set, "Type")) != "TXT" || child(set, "SetIdentifier") != nullptr) {
      continue;
    }
    out.exists = true;
    out.ttl = std::atoi(textOf(child(set, "TTL")).c_str());
    for (const xmlNode* r : children(child(set, "ResourceRecords"), "ResourceRecord"))
      out.values.push_back(unquote(textOf(child(r, "Value"))));
  }
  return out;
}

domain::Status Route53DnsProvider::change(const std::string& zoneId, const std::string& action,
                                          const std::string& name, const RecordSet& set) {
  std::string records;
  for (const auto& v : set.values)
    records +=
        "<ResourceRecord><Value>" + domain::escapeHtml(quoted(v)) + "</Value></ResourceRecord>";
  const std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<ChangeResourceRecordSetsRequest xmlns=\"https://route53.amazonaws.com/doc/2013-04-01/\">"
      "<ChangeBatch><Comment>ACME challenge (CertSteward)</Comment><Changes><Change><Action>" +
      action + "</Action><ResourceRecordSet><Name>" + domain::escapeHtml(name) +
      "</Name><Type>TXT</Type><TTL>" + std::to_string(set.ttl) + "</TTL><ResourceRecords>" +
      records +
      "</ResourceRecords></ResourceRecordSet></Change></Changes></ChangeBatch>"
      "</ChangeResourceRecordSetsRequest>";
  auto answer = call("POST", std::string(kVersion) + "/hostedzone/" + zoneId + "/rrset", {}, body);
  if (!answer) return answer.error();
  if (answer->status != 200) return refusal(answer->status, answer->code, answer->message, name);
  const xmlNode* info = child(xmlDocGetRootElement(answer->doc.get()), "ChangeInfo");
  std::string id = textOf(child(info, "Id"));
  if (const auto slash = id.rfind('/'); slash != std::string::npos) id = id.substr(slash + 1);
  const std::lock_guard lock(mutex_);
  if (plainWord(id, true) && textOf(child(info, "Status")) != "INSYNC") {
    pending_[name] = id;
  } else {
    pending_.erase(name);
  }
  return {};
}

domain::Status Route53DnsProvider::present(const ports::TxtRecord& record) {
  if (auto ok = checkRecord(record); !ok) return ok;
  auto zoneId = zoneOf(record.zone);
  if (!zoneId) return zoneId.error();
  const std::string name = lowered(absolute(record.name));
  const auto lock = lockName(record.name);
  auto set = recordSet(*zoneId, name);
  if (!set) return set.error();
  if (std::find(set->values.begin(), set->values.end(), record.value) != set->values.end())
    return {};
  set->values.push_back(record.value);
  set->ttl = std::max(record.ttl_seconds, 1);
  return change(*zoneId, "UPSERT", name, *set);
}

domain::Status Route53DnsProvider::cleanup(const ports::TxtRecord& record) {
  if (auto ok = checkRecord(record); !ok) return ok;
  auto zoneId = zoneOf(record.zone);
  if (!zoneId) return zoneId.error();
  const std::string name = lowered(absolute(record.name));
  const auto lock = lockName(record.name);
  auto set = recordSet(*zoneId, name);
  if (!set) return set.error();
  const auto at = std::find(set->values.begin(), set->values.end(), record.value);
  if (at == set->values.end()) return {};                                     // already gone
  if (set->values.size() == 1) return change(*zoneId, "DELETE", name, *set);  // exactly as it is
  set->values.erase(at);
  return change(*zoneId, "UPSERT", name, *set);
}

domain::Status Route53DnsProvider::waitVisible(const ports::TxtRecord& record,
                                               domain::Duration timeout) {
  if (auto ok = checkRecord(record); !ok) return ok;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto zoneId = zoneOf(record.zone);
  if (!zoneId) return zoneId.error();
  const std::string name = lowered(absolute(record.name));
  for (;;) {
    std::string changeId;
    {
      const std::lock_guard lock(mutex_);
      if (const auto it = pending_.find(name); it != pending_.end()) changeId = it->second;
    }
    bool inSync = changeId.empty();
    if (!inSync) {
      auto answer = call("GET", std::string(kVersion) + "/change/" + changeId, {}, {}, deadline);
      if (!answer) return answer.error();
      if (answer->status == 404) {
        inSync = true;  // a change Route 53 no longer knows (they are kept 90 days) is long done
      } else if (answer->status != 200) {
        return refusal(answer->status, answer->code, answer->message, name);
      } else {
        const xmlNode* info = child(xmlDocGetRootElement(answer->doc.get()), "ChangeInfo");
        inSync = textOf(child(info, "Status")) == "INSYNC";
      }
      if (inSync) {
        const std::lock_guard lock(mutex_);
        if (pending_[name] == changeId) pending_.erase(name);
      }
    }
    if (inSync) {
      auto set = recordSet(*zoneId, name, deadline);
      if (!set) return set.error();
      if (std::find(set->values.begin(), set->values.end(), record.value) != set->values.end()) {
        if (!checker_) return {};
        const auto left = std::chrono::duration_cast<domain::Duration>(
            deadline - std::chrono::steady_clock::now());
        return checker_->waitVisible(record, std::max(left, domain::Duration::zero()));
      }
    }
    if (std::chrono::steady_clock::now() + settings_.poll_interval > deadline) {
      return makeError(ErrorCode::unavailable,
                       "the TXT record " + name + " was not " +
                           (inSync ? "in the zone" : "in sync on Route 53's servers") +
                           " in the time given");
    }
    std::this_thread::sleep_for(settings_.poll_interval);
  }
}

}  // namespace certsteward::adapters::dns
