// Google Cloud DNS's API v1, and the service account's access token it takes, for DNS-01.
#include <certsteward/adapters/dns/gcloud_dns_provider.hpp>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <climits>
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

// What the key file gives (its other fields are not used).
struct GCloudServiceAccount {
  std::string client_email;
  std::string private_key_id;
  std::string private_key;  // PEM: signs the token requests, never sent
  std::string token_uri;
  std::string project_id;
};

namespace {

constexpr int kMaxPages = 50;        // bounds every walk through a paged answer
constexpr int kMaxConflicts = 5;     // a change redone at most this often when the set changed
constexpr int kTokenSeconds = 3600;  // the longest an assertion may ask for (Google's limit)
constexpr std::size_t kKeyFileLimit = 64 * 1024;
constexpr const char* kScope = "https://www.googleapis.com/auth/ndev.clouddns.readwrite";
constexpr const char* kGrant =
    "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=";

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Bio = std::unique_ptr<BIO, Deleter<BIO, BIO_free_all>>;
using Pkey = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, Deleter<EVP_MD_CTX, EVP_MD_CTX_free>>;

domain::Error bad(const std::string& why) {
  return makeError(ErrorCode::invalid_argument, why);
}

// The RSA private key of `pem`, or null. No passphrase is asked for (an encrypted key is not
// read), and OpenSSL's error queue is emptied: nothing of the key is left behind in words.
Pkey readRsaKey(const std::string& pem) {
  if (pem.empty() || pem.size() > kKeyFileLimit) return nullptr;
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  Pkey key(bio ? PEM_read_bio_PrivateKey(
                     bio.get(), nullptr, [](char*, int, int, void*) { return 0; }, nullptr)
               : nullptr);
  ERR_clear_error();
  if (key && EVP_PKEY_get_base_id(key.get()) != EVP_PKEY_RSA) return nullptr;
  return key;
}

// RSASSA-PKCS1-v1_5 with SHA-256 (JWS RS256) of `input` with the key of `pem`.
domain::Result<std::string> signRs256(const std::string& pem, std::string_view input) {
  const Pkey key = readRsaKey(pem);
  if (!key) {
    return bad(
        "the key file's private_key cannot be read as an RSA private key: download a new "
        "JSON key for the service account");
  }
  MdCtx ctx(EVP_MD_CTX_new());
  const auto* data = reinterpret_cast<const unsigned char*>(input.data());
  std::size_t size = 0;
  std::string signature;
  const bool ok = ctx &&
                  EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) == 1 &&
                  EVP_DigestSign(ctx.get(), nullptr, &size, data, input.size()) == 1 &&
                  (signature.resize(size), true) &&
                  EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()),
                                 &size, data, input.size()) == 1;
  ERR_clear_error();
  if (!ok) {
    return makeError(ErrorCode::internal,
                     "the token request could not be signed with the key file's private key");
  }
  signature.resize(size);
  return signature;
}

// Printable ASCII without spaces: what may go into a header or a message.
bool printable(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

// Letters, digits, '-' and '_': the key's id (40 hex digits as Google makes them).
bool plainWord(const std::string& s) {
  return !s.empty() && s.size() <= 128 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_';
  });
}

// A project id: lower-case letters, digits and '-' (older ones "example.com:name").
bool projectId(const std::string& p) {
  return !p.empty() && p.size() <= 100 && std::all_of(p.begin(), p.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == ':';
  });
}

// A managed zone's name (lower-case letters, digits and '-') or its numeric id.
bool zoneRef(const std::string& z) {
  return !z.empty() && z.size() <= 63 && std::all_of(z.begin(), z.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

bool allowedUrl(const std::string& url) {
  return url.find("://") != std::string::npos && common::isAllowedHttpUrl(url) &&
         url.find_first_of("?#@") == std::string::npos;
}

// The key file's fields, with words for what is missing (never its contents).
domain::Result<GCloudServiceAccount> readKeyFile(const std::string& text) {
  if (text.empty()) {
    return bad(
        "the service account's key file is missing: give its JSON key (IAM, Service "
        "accounts, Keys, Add key, JSON) as the secret");
  }
  if (text.size() > kKeyFileLimit) {
    return bad("the secret is too long to be a service account's key file (at most 64 KiB)");
  }
  boost::system::error_code ec;
  const auto doc = json::parse(text, ec);
  if (ec || !doc.is_object()) {
    return bad(
        "the secret must be the service account's key file as Google gives it (its whole "
        "JSON text), not the private key alone or a file's name");
  }
  const auto& o = doc.as_object();
  if (jsonText(o, "type") != "service_account") {
    return bad(
        "the key file's type must be service_account: give a service account's JSON key, "
        "not a user's credentials or a workload identity configuration");
  }
  GCloudServiceAccount a{jsonText(o, "client_email"), jsonText(o, "private_key_id"),
                         jsonText(o, "private_key"), jsonText(o, "token_uri"),
                         jsonText(o, "project_id")};
  if (a.client_email.find('@') == std::string::npos || a.client_email.size() > 320 ||
      !printable(a.client_email)) {
    return bad(
        "the key file has no valid client_email (the service account's address): "
        "download a new JSON key");
  }
  if (!plainWord(a.private_key_id)) {
    return bad("the key file has no valid private_key_id: download a new JSON key");
  }
  if (a.private_key.find("-----BEGIN") == std::string::npos) {
    return bad("the key file has no private_key in PEM: download a new JSON key");
  }
  if (!readRsaKey(a.private_key)) {
    return bad(
        "the key file's private_key cannot be read as an RSA private key (PEM, not "
        "encrypted): download a new JSON key");
  }
  if (a.token_uri.empty()) {
    return bad("the key file has no token_uri (Google's is https://oauth2.googleapis.com/token)");
  }
  if (!allowedUrl(a.token_uri)) {
    return bad(
        "the key file's token_uri must be an https URL (http only to a loopback host) "
        "without query or user, such as https://oauth2.googleapis.com/token");
  }
  return a;
}

// An integer of `o` (a JSON number, or a decimal string as proto3 JSON writes int64s).
std::optional<long long> integer(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64()) {
    return static_cast<long long>(std::min<std::uint64_t>(v->as_uint64(), LLONG_MAX));
  }
  if (v->is_string()) {
    const auto& s = v->as_string();
    long long out = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec == std::errc{} && end == s.data() + s.size()) return out;
  }
  return std::nullopt;
}

// The array at `key` of `o`, or an empty one.
const json::array& arrayOf(const json::object& o, std::string_view key) {
  static const json::array kNone;
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_array() ? v->as_array() : kNone;
}

// Google's error: {"error": {"code", "message", "errors": [{"reason", ...}], "status"}}.
const json::object* googleError(const json::object& doc) {
  const auto* e = doc.if_contains("error");
  return e != nullptr && e->is_object() ? &e->as_object() : nullptr;
}

std::string reasonOf(const json::object& doc) {
  const auto* e = googleError(doc);
  if (e == nullptr || arrayOf(*e, "errors").empty()) return {};
  const auto& first = arrayOf(*e, "errors").front();
  return first.is_object() ? jsonText(first.as_object(), "reason").substr(0, 60) : std::string();
}

// " (403 forbidden: Forbidden)": the status, Google's reason and message, bounded.
std::string detailOf(long status, const json::object& doc) {
  const auto* e = googleError(doc);
  std::string said = e != nullptr ? jsonText(*e, "message") : std::string();
  if (said.size() > 200) said.resize(200);
  const std::string reason = reasonOf(doc);
  return " (" + std::to_string(status) + (reason.empty() ? "" : " " + reason) +
         (said.empty() ? "" : ": " + said) + ")";
}

// What a Cloud DNS answer other than success means, in words that say what to fix.
domain::Error refusal(long status, const json::object& doc, const std::string& zone,
                      const std::string& project) {
  const std::string detail = detailOf(status, doc);
  if (status == 401) {
    return makeError(ErrorCode::permission_denied,
                     "Google Cloud DNS refused the service account's access token" + detail +
                         ": check the DNS credential's key file");
  }
  if (status == 403) {
    return makeError(ErrorCode::permission_denied,
                     "Google Cloud DNS refused the service account" + detail +
                         ": check the DNS credential's project_id (" + project +
                         ") and that the account has the DNS Administrator role (roles/dns.admin) "
                         "in that project");
  }
  if (status == 404) {
    return makeError(ErrorCode::failed_precondition,
                     "Google Cloud DNS has no managed zone " + zone + " in project " + project +
                         detail +
                         ": check the zone, and the credential's managed_zone, project_id and "
                         "api_url");
  }
  if (status == 429) {
    return makeError(ErrorCode::unavailable,
                     "Google Cloud DNS's rate limit was reached (429): the change is retried "
                     "later");
  }
  if (status == 400) {
    return makeError(ErrorCode::invalid_argument, "Google Cloud DNS refused the request" + detail);
  }
  return makeError(ErrorCode::unavailable, "Google Cloud DNS answered" + detail);
}

// What a refusal by the token endpoint means ({"error", "error_description"}: Google's words,
// masked and bounded).
domain::Error tokenRefusal(long status, const json::object& doc, const std::string& assertion) {
  std::string said = jsonText(doc, "error");
  if (const auto description = jsonText(doc, "error_description"); !description.empty())
    said += (said.empty() ? "" : ": ") + description;
  said = common::maskSecrets(said, {assertion});
  if (said.size() > 200) said.resize(200);
  const std::string detail = " (" + std::to_string(status) + (said.empty() ? "" : " " + said) + ")";
  if (status == 400 || status == 401 || status == 403) {
    return makeError(ErrorCode::permission_denied,
                     "Google refused the service account's key" + detail +
                         ": check the DNS credential's key file (the key deleted or disabled "
                         "under IAM, Service accounts, Keys, or the account disabled) and this "
                         "server's clock");
  }
  if (status == 404) {
    return makeError(
        ErrorCode::failed_precondition,
        "Google's token endpoint was not found" + detail + ": check the key file's token_uri");
  }
  return makeError(ErrorCode::unavailable,
                   "Google's token endpoint answered" + detail + ": the change is retried later");
}

// A record set as a change names it.
json::object setJson(const std::string& name, long long ttl,
                     const std::vector<std::string>& rrdatas) {
  json::array data;
  for (const auto& r : rrdatas)
    data.emplace_back(r);
  return {{"name", name}, {"type", "TXT"}, {"ttl", ttl}, {"rrdatas", std::move(data)}};
}

// A TXT rrdata's text: its quoted character strings joined (backslash escapes read), or the
// rrdata itself when it is not quoted.
std::string txtText(const std::string& rrdata) {
  if (rrdata.empty() || rrdata.front() != '"') return rrdata;
  std::string out;
  bool inside = false;
  for (std::size_t i = 0; i < rrdata.size(); ++i) {
    const char c = rrdata[i];
    if (!inside) {
      inside = c == '"';
    } else if (c == '\\' && i + 1 < rrdata.size()) {
      out += rrdata[++i];
    } else if (c == '"') {
      inside = false;
    } else {
      out += c;
    }
  }
  return out;
}

bool numericId(const std::string& id) {
  return !id.empty() && id.size() <= 20 &&
         std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

GCloudDnsProvider::GCloudDnsProvider(GCloudSettings settings) : settings_(std::move(settings)) {
  if (auto account = readKeyFile(settings_.service_account_json)) {
    project_ = settings_.project_id.empty() ? account->project_id : settings_.project_id;
    account_ = std::make_shared<const GCloudServiceAccount>(std::move(*account));
  }
}

GCloudDnsProvider::~GCloudDnsProvider() = default;

domain::Status GCloudDnsProvider::validate(const GCloudSettings& s) {
  if (s.api_url.find("://") == std::string::npos || !common::isAllowedHttpUrl(s.api_url)) {
    return bad("api_url must be an https URL (http only to a loopback host)");
  }
  if (s.api_url.find_first_of("?#@") != std::string::npos) {
    return bad("api_url must be the API's base address, such as " +
               std::string(GCloudSettings::kApiUrl) + " (no query or user)");
  }
  auto account = readKeyFile(s.service_account_json);
  if (!account) return account.error();
  const std::string& project = s.project_id.empty() ? account->project_id : s.project_id;
  if (project.empty()) {
    return bad(
        "project_id is missing: set it to the project that holds the zone (the key file "
        "names none)");
  }
  if (!projectId(project)) {
    return bad(
        "project_id must be the project's id (lower-case letters, digits and '-', such as "
        "my-project-123456)");
  }
  if (!s.managed_zone.empty() && !zoneRef(s.managed_zone)) {
    return bad(
        "managed_zone must be the managed zone's name (lower-case letters, digits and '-', "
        "such as example-com) or its numeric id, or left empty to find the zone by its "
        "DNS name");
  }
  if (s.max_retries < 0) return bad("max_retries must be 0 or more");
  return {};
}

domain::Result<std::string> GCloudDnsProvider::accessToken(const std::string& refused) {
  const std::lock_guard lock(tokenMutex_);
  const auto requested = std::chrono::steady_clock::now();
  if (!token_.empty() && requested < tokenUntil_ && token_ != refused) return token_;
  // The assertion: a JWT signed with the account's key, asking for Cloud DNS read and write.
  const long long issued = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  const json::object header{{"alg", "RS256"}, {"typ", "JWT"}, {"kid", account_->private_key_id}};
  const json::object claims{{"iss", account_->client_email},
                            {"scope", kScope},
                            {"aud", account_->token_uri},
                            {"iat", issued},
                            {"exp", issued + kTokenSeconds}};
  const std::string input = domain::base64UrlEncode(json::serialize(header)) + "." +
                            domain::base64UrlEncode(json::serialize(claims));
  auto signature = signRs256(account_->private_key, input);
  if (!signature) return signature.error();
  const std::string assertion = input + "." + domain::base64UrlEncode(*signature);

  common::HttpRequest request;
  request.url = account_->token_uri;
  request.headers = {"Content-Type: application/x-www-form-urlencoded", "Accept: application/json"};
  request.body = kGrant + assertion;
  request.ca_pem = settings_.ca_pem;
  request.timeout = settings_.timeout;
  request.response_limit = 4 * 1024 * 1024;
  request.secrets = {assertion};
  request.outbound = settings_.outbound.get();
  auto answer = callJsonApi("POST", request, settings_.max_retries);
  if (!answer) return answer.error();
  if (answer->status != 200) return tokenRefusal(answer->status, answer->doc, assertion);
  std::string token = jsonText(answer->doc, "access_token");
  if (token.empty() || token.size() > 4096 || !printable(token)) {
    return makeError(ErrorCode::unavailable, "Google's token endpoint answered without a token");
  }
  const long long lifetime = integer(answer->doc, "expires_in").value_or(kTokenSeconds);
  token_ = token;
  tokenUntil_ = requested + std::chrono::seconds{std::clamp(lifetime - 60, 0LL, 86400LL)};
  return token;
}

domain::Result<JsonAnswer> GCloudDnsProvider::call(std::string_view method,
                                                   const std::string& target,
                                                   const std::string& body) {
  if (!account_) return readKeyFile(settings_.service_account_json).error();  // in its words
  if (!projectId(project_)) {
    return bad("project_id is missing or malformed: set it to the project that holds the zone");
  }
  auto token = accessToken();
  if (!token) return token.error();
  for (bool renewed = false;; renewed = true) {
    const auto request =
        bearerJsonRequest(settings_.api_url + "/projects/" + project_ + target, *token, body,
                          settings_.ca_pem, settings_.timeout, settings_.outbound.get());
    auto answer = callJsonApi(method, request, settings_.max_retries);
    if (!answer || answer->status != 401 || renewed) return answer;
    token = accessToken(*token);  // lapsed or revoked before its time: renewed once
    if (!token) return token.error();
  }
}

domain::Result<GCloudDnsProvider::Zone> GCloudDnsProvider::zoneOf(const std::string& zone) {
  const std::string wanted = lowered(absolute(zone));
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = zones_.find(wanted); it != zones_.end()) return it->second;
  }
  const auto zoneFrom = [](const json::object& o, std::string path) {
    Zone z{std::move(path), lowered(absolute(jsonText(o, "dnsName"))), {}};
    for (const auto& n : arrayOf(o, "nameServers")) {
      if (n.is_string()) z.name_servers.push_back(relative(std::string(n.as_string())));
    }
    return z;
  };
  std::optional<Zone> found;
  if (!settings_.managed_zone.empty()) {
    auto answer = call("GET", "/managedZones/" + settings_.managed_zone);
    if (!answer) return answer.error();
    if (answer->status != 200)
      return refusal(answer->status, answer->doc, settings_.managed_zone, project_);
    found = zoneFrom(answer->doc, settings_.managed_zone);
    if (found->dns_name != wanted) {
      return makeError(ErrorCode::failed_precondition,
                       "the credential's managed_zone is Google Cloud DNS's zone for " +
                           found->dns_name.substr(0, 254) + ", not " + wanted +
                           ": give that zone's name or id, or leave managed_zone empty");
    }
  } else {
    std::string page;
    for (int n = 0; n < kMaxPages && !found; ++n) {
      std::string target = "/managedZones?dnsName=" + domain::percentEncode(wanted);
      if (!page.empty()) target += "&pageToken=" + domain::percentEncode(page);
      auto answer = call("GET", target);
      if (!answer) return answer.error();
      if (answer->status != 200) return refusal(answer->status, answer->doc, wanted, project_);
      for (const auto& z : arrayOf(answer->doc, "managedZones")) {
        if (!z.is_object()) continue;
        const auto& o = z.as_object();
        const auto visibility = jsonText(o, "visibility");  // a private zone: not what a CA sees
        if (lowered(absolute(jsonText(o, "dnsName"))) == wanted &&
            (visibility.empty() || visibility == "public")) {
          found = zoneFrom(o, jsonText(o, "name"));
          break;
        }
      }
      page = jsonText(answer->doc, "nextPageToken");
      if (page.empty()) break;
    }
    if (!found) {
      return makeError(ErrorCode::failed_precondition,
                       "Google Cloud DNS has no public managed zone " + wanted + " in project " +
                           project_ +
                           ": create it (Network services, Cloud DNS), check the credential's "
                           "project_id, or set its managed_zone");
    }
  }
  if (!zoneRef(found->path)) {
    return makeError(ErrorCode::unavailable,
                     "Google Cloud DNS answered a zone without a valid name");
  }
  const std::lock_guard lock(mutex_);
  zones_[wanted] = *found;
  return *found;
}

domain::Result<GCloudDnsProvider::RecordSet> GCloudDnsProvider::recordSet(const Zone& zone,
                                                                          const std::string& name) {
  RecordSet out;
  std::string page;
  for (int n = 0; n < kMaxPages; ++n) {
    std::string target =
        "/managedZones/" + zone.path + "/rrsets?name=" + domain::percentEncode(name) + "&type=TXT";
    if (!page.empty()) target += "&pageToken=" + domain::percentEncode(page);
    auto answer = call("GET", target);
    if (!answer) return answer.error();
    if (answer->status != 200) return refusal(answer->status, answer->doc, zone.dns_name, project_);
    for (const auto& r : arrayOf(answer->doc, "rrsets")) {
      if (!r.is_object()) continue;
      const auto& o = r.as_object();
      if (jsonText(o, "type") != "TXT" || lowered(absolute(jsonText(o, "name"))) != name) continue;
      out.exists = true;
      out.ttl = integer(o, "ttl").value_or(0);
      out.rrdatas.clear();
      out.values.clear();
      for (const auto& d : arrayOf(o, "rrdatas")) {
        if (!d.is_string()) continue;
        out.rrdatas.emplace_back(d.as_string());
        out.values.push_back(txtText(out.rrdatas.back()));
      }
    }
    page = jsonText(answer->doc, "nextPageToken");
    if (page.empty()) break;
  }
  return out;
}

domain::Status GCloudDnsProvider::change(const Zone& zone, const std::string& name,
                                         const std::string& value, bool add, int ttl) {
  for (int attempt = 0; attempt < kMaxConflicts; ++attempt) {
    auto set = recordSet(zone, name);
    if (!set) return set.error();
    const bool there =
        std::find(set->values.begin(), set->values.end(), value) != set->values.end();
    if (there == add) return {};  // already so
    // One change: the set deleted exactly as read, and the set it becomes added.
    std::vector<std::string> rrdatas;
    for (std::size_t i = 0; i < set->values.size(); ++i) {
      if (set->values[i] != value) rrdatas.push_back(set->rrdatas[i]);
    }
    if (add) rrdatas.push_back(quoted(value));
    json::object body;
    if (set->exists) body["deletions"] = json::array{setJson(name, set->ttl, set->rrdatas)};
    if (!rrdatas.empty())
      body["additions"] = json::array{setJson(name, set->exists ? set->ttl : ttl, rrdatas)};
    auto answer = call("POST", "/managedZones/" + zone.path + "/changes", json::serialize(body));
    if (!answer) return answer.error();
    // Refused because the set changed since it was read (written meanwhile, or the set deleted
    // gone): nothing was changed; read it again.
    const auto* error = googleError(answer->doc);
    const bool gone = answer->status == 404 && error != nullptr &&
                      jsonText(*error, "message").find("deletions") != std::string::npos;
    if (answer->status == 409 || answer->status == 412 || gone) continue;
    if (answer->status != 200) return refusal(answer->status, answer->doc, zone.dns_name, project_);
    const std::string id = jsonText(answer->doc, "id");
    const std::lock_guard lock(mutex_);
    if (numericId(id) && jsonText(answer->doc, "status") != "done") {
      pending_[name] = {zone.path, id};
    } else {
      pending_.erase(name);
    }
    return {};
  }
  return makeError(ErrorCode::unavailable,
                   "the TXT record set " + name + " kept changing while it was written (" +
                       std::to_string(kMaxConflicts) + " tries): the change is retried later");
}

domain::Status GCloudDnsProvider::present(const ports::TxtRecord& record) {
  if (auto ok = checkRecord(record); !ok) return ok;
  auto zone = zoneOf(record.zone);
  if (!zone) return zone.error();
  const auto lock = lockName(record.name);
  return change(*zone, lowered(absolute(record.name)), record.value, true,
                std::max(record.ttl_seconds, 1));
}

domain::Status GCloudDnsProvider::cleanup(const ports::TxtRecord& record) {
  if (auto ok = checkRecord(record); !ok) return ok;
  auto zone = zoneOf(record.zone);
  if (!zone) return zone.error();
  const auto lock = lockName(record.name);
  return change(*zone, lowered(absolute(record.name)), record.value, false,
                std::max(record.ttl_seconds, 1));
}

domain::Status GCloudDnsProvider::waitVisible(const ports::TxtRecord& record,
                                              domain::Duration timeout) {
  if (auto ok = checkRecord(record); !ok) return ok;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto zone = zoneOf(record.zone);
  if (!zone) return zone.error();
  const std::string name = lowered(absolute(record.name));
  // First the last change to the name, until Google reports it done on its name servers.
  for (;;) {
    PendingChange pending;
    {
      const std::lock_guard lock(mutex_);
      if (const auto it = pending_.find(name); it != pending_.end()) pending = it->second;
    }
    if (pending.id.empty()) break;
    auto answer = call("GET", "/managedZones/" + pending.zone_path + "/changes/" + pending.id);
    if (!answer) return answer.error();
    // A change Google no longer knows is long done.
    if (answer->status == 404 ||
        (answer->status == 200 && jsonText(answer->doc, "status") == "done")) {
      const std::lock_guard lock(mutex_);
      if (const auto it = pending_.find(name); it != pending_.end() && it->second.id == pending.id)
        pending_.erase(it);
      break;
    }
    if (answer->status != 200)
      return refusal(answer->status, answer->doc, zone->dns_name, project_);
    if (std::chrono::steady_clock::now() + settings_.poll_interval > deadline) {
      return makeError(ErrorCode::unavailable,
                       "the change to the TXT record " + name +
                           " was not done on Google Cloud DNS's name servers in the time given");
    }
    std::this_thread::sleep_for(settings_.poll_interval);
  }
  // Then the name servers themselves.
  const auto& servers =
      settings_.check_servers.empty() ? zone->name_servers : settings_.check_servers;
  if (servers.empty()) {
    return makeError(ErrorCode::failed_precondition,
                     "Google Cloud DNS lists no name servers for zone " + zone->dns_name +
                         ": set the credential's check_servers");
  }
  std::shared_ptr<Rfc2136DnsProvider> checker;
  {
    const std::lock_guard lock(mutex_);
    auto& slot = checkers_[zone->path];
    if (!slot) {
      slot = Rfc2136DnsProvider::visibilityChecker(servers, settings_.timeout,
                                                   settings_.poll_interval, settings_.outbound);
    }
    checker = slot;
  }
  const auto left =
      std::chrono::duration_cast<domain::Duration>(deadline - std::chrono::steady_clock::now());
  return checker->waitVisible(record, std::max(left, domain::Duration::zero()));
}

}  // namespace certsteward::adapters::dns
