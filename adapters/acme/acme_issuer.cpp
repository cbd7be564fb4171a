// RFC 8555 flows. The HTTP exchange (libcurl) and JSON (Boost.JSON) stay in this file; the
// cryptography is in acme_crypto.cpp.
#include <certsteward/adapters/acme/acme_issuer.hpp>

#include <curl/curl.h>

#include <boost/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <locale>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include <certsteward/adapters/acme/acme_crypto.hpp>
#include <certsteward/adapters/acme/ari.hpp>
#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/domain/encoding.hpp>
#include <certsteward/ports/dns_provider.hpp>

namespace certsteward::adapters::acme {
namespace {

namespace json = boost::json;
using domain::base64UrlDecode;
using domain::base64UrlEncode;
using domain::ErrorCode;
using domain::makeError;
using Clock = std::chrono::steady_clock;

struct Reply {
  long status = 0;
  std::string body;
  std::multimap<std::string, std::string> headers;  // lower-case names
  std::string header(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

std::size_t onBody(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

std::size_t onHeader(char* data, std::size_t size, std::size_t n, void* out) {
  std::string line(data, size * n);
  const auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t\r\n") + 1);
    static_cast<std::multimap<std::string, std::string>*>(out)->emplace(name, value);
  }
  return size * n;
}

// libcurl's progress callback: a non-zero answer aborts the transfer.
int onProgress(void* stop, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return stop != nullptr && static_cast<const domain::StopSignal*>(stop)->requested() ? 1 : 0;
}

domain::Error stopped() {
  return makeError(ErrorCode::unavailable, "stopped before the order finished", "stopped");
}

// Sleeps `pause` in short steps; false when `stop` was raised meanwhile.
bool pauseUnlessStopped(std::chrono::milliseconds pause, const domain::StopSignal* stop) {
  const auto until = Clock::now() + pause;
  while (Clock::now() < until) {
    if (stop != nullptr && stop->requested()) return false;
    std::this_thread::sleep_for(
        std::min<Clock::duration>(std::chrono::milliseconds{50}, until - Clock::now()));
  }
  return stop == nullptr || !stop->requested();
}

// One HTTP exchange with the CA. unavailable for anything below HTTP (DNS, TCP, TLS, timeout).
// `trust`: the PEM the CA's TLS certificate must chain to (its provider's trust bundle); empty:
// the system's roots plus acme.ca_bundle.
domain::Result<Reply> exchange(const AcmeSettings& settings, const std::string& trust,
                               const std::string& method, const std::string& url,
                               const std::string& body, const std::string& accept = {},
                               const domain::StopSignal* stop = nullptr) {
  if (stop != nullptr && stop->requested()) return stopped();
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return makeError(ErrorCode::internal, "libcurl is unavailable");
  Reply reply;
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "User-Agent: certsteward (RFC 8555)");
  if (method == "POST") headers = curl_slist_append(headers, "Content-Type: application/jose+json");
  if (!accept.empty()) headers = curl_slist_append(headers, ("Accept: " + accept).c_str());
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https,http");
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(settings.request_timeout.count()));
  curl_easy_setopt(
      curl, CURLOPT_CONNECTTIMEOUT_MS,
      static_cast<long>(std::min<std::int64_t>(settings.request_timeout.count(), 10000)));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, onBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &reply.headers);
  curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(4 * 1024 * 1024));
  if (stop != nullptr) {
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, onProgress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, const_cast<domain::StopSignal*>(stop));
  }
  curl_blob trustBlob{const_cast<char*>(trust.data()), trust.size(), CURL_BLOB_NOCOPY};
  if (!trust.empty()) {
    // Only the bundle: neither the CA file nor the CA directory libcurl was built with.
    curl_easy_setopt(curl, CURLOPT_CAINFO, nullptr);
    curl_easy_setopt(curl, CURLOPT_CAPATH, nullptr);
    curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &trustBlob);
  } else if (!settings.ca_bundle.empty()) {
    curl_easy_setopt(curl, CURLOPT_CAINFO, settings.ca_bundle.c_str());
  }
  // A project's directory URL (and the URLs the CA hands out) goes through the outbound policy.
  common::CurlPin pin;
  if (settings.outbound != nullptr) {
    CURLU* parsed = curl_url();
    char* host = nullptr;
    char* port = nullptr;
    const bool ok = parsed != nullptr &&
                    curl_url_set(parsed, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK &&
                    curl_url_get(parsed, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
                    curl_url_get(parsed, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK;
    const std::string hostText = host != nullptr ? host : "";
    const long portNumber = port != nullptr ? std::strtol(port, nullptr, 10) : 0;
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(parsed);
    domain::Status pinned =
        ok ? pin.pin(curl, *settings.outbound, hostText, portNumber)
           : domain::Status{makeError(ErrorCode::invalid_argument, "not a URL: " + url)};
    if (!pinned) {
      curl_slist_free_all(headers);
      curl_easy_cleanup(curl);
      return pinned.error();
    }
  }
  if (method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  const CURLcode rc = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  if (rc == CURLE_ABORTED_BY_CALLBACK) return stopped();
  if (rc != CURLE_OK) {
    if (settings.outbound != nullptr) {  // project-aimed: one phrase, the reason in the log
      common::logOutboundDetail(url, curl_easy_strerror(rc));
      return makeError(ErrorCode::unavailable,
                       "the CA at " + url + ": " + common::couldNotConnect("its host"),
                       std::string(ports::kCaUnreachable));
    }
    return makeError(ErrorCode::unavailable,
                     "the CA at " + url + " cannot be reached: " + curl_easy_strerror(rc),
                     std::string(ports::kCaUnreachable));
  }
  return reply;
}

json::object parseObject(const std::string& text) {
  boost::system::error_code ec;
  auto v = json::parse(text, ec);
  if (ec || !v.is_object()) return {};
  return v.as_object();
}

std::string str(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

// A problem document (RFC 8555 6.7) or an unexpected status as a domain error.
domain::Error problem(const Reply& r, const std::string& doing) {
  const auto doc = parseObject(r.body);
  std::string type = str(doc, "type");
  const std::string prefix = "urn:ietf:params:acme:error:";
  if (type.starts_with(prefix)) type = type.substr(prefix.size());
  std::string detail = str(doc, "detail");
  if (const auto* subs = doc.if_contains("subproblems"); subs != nullptr && subs->is_array()) {
    for (const auto& sub : subs->as_array()) {
      if (sub.is_object()) detail += "; " + str(sub.as_object(), "detail");
    }
  }
  if (detail.empty()) detail = "HTTP " + std::to_string(r.status);
  detail = detail.substr(0, 1000);
  ErrorCode code = ErrorCode::failed_precondition;
  if (type == "rateLimited") code = ErrorCode::resource_exhausted;
  if (type == "serverInternal" || (type.empty() && r.status >= 500)) code = ErrorCode::unavailable;
  if (type == "unauthorized" || type == "externalAccountRequired") {
    code = ErrorCode::permission_denied;
  }
  return makeError(code,
                   "CA refused " + doing + ": " + detail + (type.empty() ? "" : " (" + type + ")"),
                   type.empty() ? "http_" + std::to_string(r.status) : type);
}

// Seconds of a Retry-After header (delta-seconds form), clamped; else the default.
std::chrono::milliseconds retryAfter(const Reply& r, std::chrono::milliseconds fallback) {
  const std::string value = r.header("retry-after");
  if (value.empty() || !std::all_of(value.begin(), value.end(), ::isdigit) || value.size() > 6) {
    return fallback;
  }
  return std::clamp<std::chrono::milliseconds>(std::chrono::seconds{std::stoi(value)}, fallback,
                                               std::chrono::seconds{60});
}

// A rateLimited answer's Retry-After (RFC 8555 6.6): delta-seconds or an HTTP-date, at most 30
// days ahead; nothing when absent or unreadable.
std::optional<std::chrono::milliseconds> rateLimitRetryAfter(const Reply& r) {
  const std::string value = r.header("retry-after");
  if (value.empty()) return std::nullopt;
  constexpr std::chrono::milliseconds kMax = std::chrono::days{30};
  if (std::all_of(value.begin(), value.end(),
                  [](unsigned char c) { return std::isdigit(c) != 0; })) {
    if (value.size() > 9) return kMax;
    return std::min<std::chrono::milliseconds>(std::chrono::seconds{std::stoll(value)}, kMax);
  }
  std::tm tm{};
  std::istringstream in(value);
  in.imbue(std::locale::classic());
  in >> std::get_time(&tm, "%a, %d %b %Y %H:%M:%S GMT");
  if (in.fail()) return std::nullopt;
  const auto at = std::chrono::system_clock::from_time_t(::timegm(&tm));
  const auto delta =
      std::chrono::duration_cast<std::chrono::milliseconds>(at - std::chrono::system_clock::now());
  return std::clamp<std::chrono::milliseconds>(delta, std::chrono::milliseconds::zero(), kMax);
}

// A CA refusal during an order, noted in `report` when it is a rate limit.
domain::Error refused(const Reply& r, const std::string& doing, ports::IssueReport* report) {
  auto error = problem(r, doing);
  if (report != nullptr && error.reason == "rateLimited") {
    report->rate_limited = true;
    report->retry_after = rateLimitRetryAfter(r);
    report->rate_limit_detail = error.message;
  }
  return error;
}

// One ACME conversation: the directory, a nonce pool of one, the account key and its kid.
class Session {
 public:
  // `trust`: as exchange()'s; by default the trust bundle of the provider at `directoryUrl`.
  Session(const AcmeSettings& settings, std::string directoryUrl,
          const domain::StopSignal* stop = nullptr, std::optional<std::string> trust = {})
      : settings_(settings), directoryUrl_(std::move(directoryUrl)), stop_(stop) {
    if (trust) {
      trust_ = std::move(*trust);
    } else if (settings_.trust_bundle_for) {
      trust_ = settings_.trust_bundle_for(directoryUrl_);
    }
  }

  const domain::StopSignal* stop() const { return stop_; }
  const AcmeSettings& settings() const { return settings_; }

  // A plain GET (renewalInfo).
  domain::Result<Reply> get(const std::string& url) {
    return exchange(settings_, trust_, "GET", url, {}, {}, stop_);
  }

  domain::Status open() {
    auto r = exchange(settings_, trust_, "GET", directoryUrl_, {}, {}, stop_);
    if (!r) return r.error();
    if (r->status != 200) return problem(*r, "the directory request");
    directory_ = parseObject(r->body);
    for (const char* key : {"newNonce", "newAccount", "newOrder"}) {
      if (str(directory_, key).empty()) {
        return makeError(ErrorCode::failed_precondition,
                         "the ACME directory at " + directoryUrl_ + " has no " + key);
      }
    }
    return {};
  }

  std::string url(const char* key) const { return str(directory_, key); }
  const json::object& directory() const { return directory_; }

  void useKey(const KeyPair* key, std::string kid) {
    key_ = key;
    kid_ = std::move(kid);
  }

  // POST a JWS (`payload` empty = POST-as-GET). With no kid yet, the JWK goes in the header.
  domain::Result<Reply> post(const std::string& target, const std::string& payload,
                             const std::string& accept = {}) {
    for (int attempt = 0; attempt < 2; ++attempt) {  // one retry on badNonce
      auto n = nonce();
      if (!n) return n.error();
      std::string header = R"({"alg":")" + key_->alg() + R"(","nonce":)" +
                           json::serialize(json::value(*n)) + R"(,"url":)" +
                           json::serialize(json::value(target));
      header += kid_.empty() ? R"(,"jwk":)" + key_->jwk() + "}"
                             : R"(,"kid":)" + json::serialize(json::value(kid_)) + "}";
      const std::string protectedB64 = base64UrlEncode(header);
      const std::string payloadB64 = payload.empty() ? std::string() : base64UrlEncode(payload);
      auto signature = key_->sign(protectedB64 + "." + payloadB64);
      if (!signature) return signature.error();
      const std::string body = R"({"protected":")" + protectedB64 + R"(","payload":")" +
                               payloadB64 + R"(","signature":")" + base64UrlEncode(*signature) +
                               R"("})";
      auto r = exchange(settings_, trust_, "POST", target, body, accept, stop_);
      if (!r) return r;
      if (auto next = r->header("replay-nonce"); !next.empty()) nonce_ = next;
      if (r->status == 400 && str(parseObject(r->body), "type").ends_with(":badNonce") &&
          attempt == 0) {
        continue;
      }
      return r;
    }
    return makeError(ErrorCode::unavailable, "the CA rejected two nonces in a row");
  }

 private:
  domain::Result<std::string> nonce() {
    if (!nonce_.empty()) return std::exchange(nonce_, std::string());
    auto r = exchange(settings_, trust_, "HEAD", url("newNonce"), {}, {}, stop_);
    if (!r) return r.error();
    auto n = r->header("replay-nonce");
    if (n.empty()) return makeError(ErrorCode::unavailable, "the CA sent no nonce");
    return n;
  }

  const AcmeSettings& settings_;
  std::string directoryUrl_;
  const domain::StopSignal* stop_ = nullptr;
  std::string trust_;
  json::object directory_;
  std::string nonce_;
  const KeyPair* key_ = nullptr;
  std::string kid_;
};

// The account key: opened from its sealed form, or generated (P-256) when there is none.
struct AccountKey {
  KeyPair key;
  std::string newlySealed;  // set when generated
};

domain::Result<AccountKey> accountKey(const ports::SecretBox& secrets,
                                      const domain::AcmeAccount& account) {
  if (!account.key_sealed.empty()) {
    auto pem = secrets.open(account.key_sealed);
    if (!pem) return makeError(ErrorCode::internal, "the account key cannot be decrypted");
    auto key = KeyPair::fromPem(*pem);
    if (!key) return key.error();
    return AccountKey{std::move(*key), {}};
  }
  auto key = KeyPair::generate(domain::KeyType::ecdsa_p256);
  if (!key) return key.error();
  auto sealed = secrets.seal(key->privatePem());
  if (!sealed) return sealed.error();
  return AccountKey{std::move(*key), std::move(*sealed)};
}

// newAccount (RFC 8555 7.3), with External Account Binding (7.3.4) when a kid is configured.
domain::Result<ports::AccountState> newAccount(Session& session, const ports::SecretBox& secrets,
                                               const domain::AcmeAccount& account,
                                               const KeyPair& key) {
  json::object payload{{"termsOfServiceAgreed", true}};
  if (!account.email.empty()) payload["contact"] = json::array{"mailto:" + account.email};
  if (!account.eab_kid.empty()) {
    auto macText = secrets.open(account.eab_hmac_sealed);
    if (!macText) return makeError(ErrorCode::internal, "the EAB key cannot be decrypted");
    auto mac = base64UrlDecode(*macText);
    if (!mac) return makeError(ErrorCode::invalid_argument, "the EAB HMAC key is not base64url");
    const std::string header = json::serialize(json::object{
        {"alg", "HS256"}, {"kid", account.eab_kid}, {"url", session.url("newAccount")}});
    const std::string protectedB64 = base64UrlEncode(header);
    const std::string payloadB64 = base64UrlEncode(key.jwk());
    payload["externalAccountBinding"] = json::object{
        {"protected", protectedB64},
        {"payload", payloadB64},
        {"signature", base64UrlEncode(hmacSha256(*mac, protectedB64 + "." + payloadB64))}};
  }
  session.useKey(&key, {});
  auto r = session.post(session.url("newAccount"), json::serialize(payload));
  if (!r) return r.error();
  if (r->status != 200 && r->status != 201) return problem(*r, "the account");
  ports::AccountState state;
  state.account_url = r->header("location");
  state.status = str(parseObject(r->body), "status");
  if (state.account_url.empty()) {
    return makeError(ErrorCode::unavailable, "the CA sent no account URL");
  }
  return state;
}

// Polls `url` (POST-as-GET) until its status leaves `waiting`; bounded by `deadline`.
domain::Result<json::object> pollUntil(Session& session, const AcmeSettings& settings,
                                       const std::string& url,
                                       std::initializer_list<const char*> waiting,
                                       Clock::time_point deadline, const std::string& what) {
  while (true) {
    auto r = session.post(url, {});
    if (!r) return r.error();
    if (r->status != 200) return problem(*r, what);
    auto doc = parseObject(r->body);
    const std::string status = str(doc, "status");
    if (std::none_of(waiting.begin(), waiting.end(), [&](const char* s) { return status == s; })) {
      return doc;
    }
    const auto pause = retryAfter(*r, settings.poll_interval);
    if (Clock::now() + pause > deadline) {
      return makeError(ErrorCode::unavailable, what + " is still " + status + " at the deadline");
    }
    if (!pauseUnlessStopped(pause, session.stop())) return stopped();
  }
}

// The first challenge error of an authorization: its words, and its type without the ACME
// prefix ("caa", "dns", "connection", ...; "unauthorized" when it has none).
std::pair<std::string, std::string> challengeError(const json::object& authz) {
  if (const auto* challenges = authz.if_contains("challenges");
      challenges != nullptr && challenges->is_array()) {
    for (const auto& c : challenges->as_array()) {
      if (!c.is_object()) continue;
      if (const auto* e = c.as_object().if_contains("error"); e != nullptr && e->is_object()) {
        std::string type = str(e->as_object(), "type");
        const std::string words = str(e->as_object(), "detail") + " (" + type + ")";
        if (type.starts_with("urn:ietf:params:acme:error:")) type = type.substr(27);
        const bool plain = !type.empty() && type.size() <= 40 &&
                           std::all_of(type.begin(), type.end(),
                                       [](unsigned char ch) { return std::isalnum(ch) != 0; });
        return {words, plain ? type : std::string("unauthorized")};
      }
    }
  }
  return {"no detail", "unauthorized"};
}

// Removes the published records whatever happens to the order.
class PublishedRecords {
 public:
  explicit PublishedRecords(ports::DnsProvider& dns) : dns_(dns) {}
  ~PublishedRecords() {
    for (const auto& r : records_)
      (void)dns_.cleanup(r);
  }
  PublishedRecords(const PublishedRecords&) = delete;
  PublishedRecords& operator=(const PublishedRecords&) = delete;
  domain::Status add(ports::TxtRecord record) {
    auto s = dns_.present(record);
    if (s) records_.push_back(std::move(record));
    return s;
  }
  const std::vector<ports::TxtRecord>& records() const { return records_; }

 private:
  ports::DnsProvider& dns_;
  std::vector<ports::TxtRecord> records_;
};

// Withdraws the HTTP-01 answers whatever happens to the order.
class PublishedFiles {
 public:
  explicit PublishedFiles(ports::Http01Responder* responder) : responder_(responder) {}
  ~PublishedFiles() {
    for (const auto& c : challenges_)
      (void)responder_->cleanup(c);
  }
  PublishedFiles(const PublishedFiles&) = delete;
  PublishedFiles& operator=(const PublishedFiles&) = delete;
  domain::Status add(ports::Http01Challenge challenge) {
    auto s = responder_->present(challenge);
    // Also when present failed part way (a webroot written on some targets only).
    challenges_.push_back(std::move(challenge));
    return s;
  }

 private:
  ports::Http01Responder* responder_;
  std::vector<ports::Http01Challenge> challenges_;
};

// The URLs of the Link: <...>;rel="alternate" headers of a certificate download.
std::vector<std::string> alternateLinks(const Reply& r) {
  std::vector<std::string> urls;
  const auto [from, to] = r.headers.equal_range("link");
  for (auto it = from; it != to && urls.size() < 10; ++it) {
    std::string_view rest = it->second;
    while (!rest.empty()) {
      const auto open = rest.find('<');
      const auto close = rest.find('>', open == std::string_view::npos ? 0 : open);
      if (open == std::string_view::npos || close == std::string_view::npos) break;
      const std::string url(rest.substr(open + 1, close - open - 1));
      auto next = rest.find('<', close);
      const std::string_view params = rest.substr(
          close + 1, next == std::string_view::npos ? std::string_view::npos : next - close - 1);
      if (params.find("rel=\"alternate\"") != std::string_view::npos ||
          params.find("rel=alternate") != std::string_view::npos) {
        urls.push_back(url);
      }
      if (next == std::string_view::npos) break;
      rest = rest.substr(next);
    }
  }
  return urls;
}

// RFC 9773: when the directory offers renewalInfo, the CA's suggested window gives the renewal
// time (a random instant inside it). Anything missing or malformed leaves the choice to the
// renewal threshold; ARI never fails an issuance.
std::optional<domain::Timestamp> suggestedRenewal(Session& session, const std::string& leafPem) {
  const std::string base = session.url("renewalInfo");
  if (base.empty()) return std::nullopt;
  auto id = ariCertId(leafPem);
  if (!id) return std::nullopt;
  auto r = session.get(base + (base.ends_with('/') ? "" : "/") + *id);
  if (!r || r->status != 200) return std::nullopt;
  auto window = parseRenewalInfo(r->body);
  if (!window) return std::nullopt;
  static thread_local std::mt19937_64 random{std::random_device{}()};
  return pickRenewalTime(*window, std::uniform_real_distribution<double>(0.0, 1.0)(random));
}

}  // namespace

AcmeIssuer::AcmeIssuer(const ports::SecretBox& secrets, AcmeSettings settings)
    : secrets_(secrets), settings_(std::move(settings)) {}

domain::Result<ports::AccountState> AcmeIssuer::registerAccount(
    const domain::AcmeAccount& account) {
  auto key = accountKey(secrets_, account);
  if (!key) return key.error();
  Session session(settings_, account.directory_url);
  if (auto s = session.open(); !s) return s.error();
  auto state = newAccount(session, secrets_, account, key->key);
  if (!state) return state.error();
  state->key_sealed = key->newlySealed;
  return state;
}

domain::Result<ports::IssuedCertificate> AcmeIssuer::issue(const ports::IssueRequest& request,
                                                           ports::DnsProvider& dns) {
  if (request.names.empty()) return makeError(ErrorCode::invalid_argument, "no names to order");
  if (request.challenge == domain::ChallengeType::http_01 && request.http01 == nullptr) {
    return makeError(ErrorCode::failed_precondition, "no HTTP-01 responder for this order");
  }
  auto key = accountKey(secrets_, request.account);
  if (!key) return key.error();
  Session session(settings_, request.account.directory_url, request.stop);
  if (auto s = session.open(); !s) return s.error();
  std::string kid = request.account.account_url;
  if (kid.empty()) {  // not registered yet: newAccount finds or creates it
    auto state = newAccount(session, secrets_, request.account, key->key);
    if (!state) return state.error();
    kid = state->account_url;
  }
  session.useKey(&key->key, kid);
  const auto deadline = Clock::now() + settings_.order_timeout;

  json::array identifiers;
  for (const auto& name : request.names) {
    identifiers.push_back(
        json::object{{"type", isIpAddress(name) ? "ip" : "dns"}, {"value", name}});
  }
  json::object newOrder{{"identifiers", identifiers}};
  if (!request.profile.empty()) newOrder["profile"] = request.profile;
  // RFC 9773 5: a renewal names the certificate it replaces, when the CA knows ARI.
  std::string replaces;
  if (!request.replaces_certificate_pem.empty() && !session.url("renewalInfo").empty()) {
    if (auto id = ariCertId(request.replaces_certificate_pem)) replaces = *id;
  }
  if (!replaces.empty()) newOrder["replaces"] = replaces;
  auto ordered = session.post(session.url("newOrder"), json::serialize(newOrder));
  if (!ordered) return ordered.error();
  if (ordered->status != 201 && !replaces.empty() && ordered->status < 500 &&
      problem(*ordered, "").reason != "rateLimited") {
    // The CA would not have this order replace that certificate (already replaced, or not one
    // of this account's): an order without `replaces` is still a renewal.
    replaces.clear();
    newOrder.erase("replaces");
    ordered = session.post(session.url("newOrder"), json::serialize(newOrder));
    if (!ordered) return ordered.error();
  }
  if (ordered->status != 201) return refused(*ordered, "the order", request.report);
  if (request.report != nullptr) ++request.report->orders_created;
  const std::string orderUrl = ordered->header("location");
  auto order = parseObject(ordered->body);

  // Authorizations: publish every answer first (DNS-01 records: wait until all are visible),
  // then answer.
  const bool http01 = request.challenge == domain::ChallengeType::http_01;
  const std::string challengeType(domain::nameOf(request.challenge));
  PublishedRecords published(dns);
  PublishedFiles files(request.http01);
  struct Pending {
    std::string authz_url, challenge_url, name;
  };
  std::vector<Pending> pending;
  const std::string thumbprint = key->key.thumbprint();
  const auto* authzUrls = order.if_contains("authorizations");
  if (authzUrls == nullptr || !authzUrls->is_array()) {
    return makeError(ErrorCode::unavailable, "the order lists no authorizations");
  }
  for (const auto& u : authzUrls->as_array()) {
    if (!u.is_string()) continue;
    const std::string authzUrl(u.as_string());
    auto r = session.post(authzUrl, {});
    if (!r) return r.error();
    if (r->status != 200) return refused(*r, "the authorization", request.report);
    const auto authz = parseObject(r->body);
    if (str(authz, "status") == "valid") continue;
    const auto* identifier = authz.if_contains("identifier");
    const std::string domainName = identifier != nullptr && identifier->is_object()
                                       ? str(identifier->as_object(), "value")
                                       : "";
    std::string token, challengeUrl;
    if (const auto* cs = authz.if_contains("challenges"); cs != nullptr && cs->is_array()) {
      for (const auto& c : cs->as_array()) {
        if (c.is_object() && str(c.as_object(), "type") == challengeType) {
          token = str(c.as_object(), "token");
          challengeUrl = str(c.as_object(), "url");
        }
      }
    }
    if (token.empty() || challengeUrl.empty() || domainName.empty()) {
      return makeError(ErrorCode::failed_precondition,
                       "the CA offers no " + challengeType + " challenge for " + domainName);
    }
    if (http01) {
      if (!domain::isAcmeToken(token)) {
        return makeError(ErrorCode::failed_precondition,
                         "the CA sent an HTTP-01 token that is not base64url for " + domainName);
      }
      if (auto s = files.add({domainName, token, token + "." + thumbprint}); !s) return s.error();
    } else {
      const std::string value = base64UrlEncode(sha256(token + "." + thumbprint));
      if (auto s = published.add({"", "_acme-challenge." + domainName + ".", value, 60}); !s) {
        return s.error();
      }
    }
    pending.push_back({authzUrl, challengeUrl, domainName});
  }
  for (const auto& record : published.records()) {
    if (auto s = dns.waitVisible(record, settings_.dns_timeout); !s) return s.error();
  }
  for (const auto& p : pending) {
    auto r = session.post(p.challenge_url, "{}");
    if (!r) return r.error();
    if (r->status != 200) return refused(*r, "the challenge answer", request.report);
  }
  // Every authorization is looked at, so each name the CA found invalid is reported.
  std::optional<domain::Error> invalid;
  for (const auto& p : pending) {
    auto authz = pollUntil(session, settings_, p.authz_url, {"pending", "processing"}, deadline,
                           "the authorization");
    if (!authz) return authz.error();
    if (str(*authz, "status") != "valid") {
      if (request.report != nullptr) request.report->failed_validations.push_back(p.name);
      if (!invalid) {
        const auto [words, type] = challengeError(*authz);
        invalid = makeError(ErrorCode::failed_precondition,
                            "the CA could not validate the " +
                                std::string(http01 ? "HTTP-01" : "DNS-01") + " challenge: " + words,
                            type);
      }
    }
  }
  if (invalid) return *invalid;

  // Finalize with a CSR for a key made here, then download the chain.
  auto certKey = KeyPair::generate(request.key_type);
  if (!certKey) return certKey.error();
  auto csr = makeCsr(*certKey, request.names);
  if (!csr) return csr.error();
  auto ready = pollUntil(session, settings_, orderUrl, {"pending"}, deadline, "the order");
  if (!ready) return ready.error();
  if (str(*ready, "status") == "ready") {
    auto r = session.post(str(*ready, "finalize"),
                          json::serialize(json::object{{"csr", base64UrlEncode(*csr)}}));
    if (!r) return r.error();
    if (r->status != 200) return refused(*r, "the finalization", request.report);
  }
  auto done =
      pollUntil(session, settings_, orderUrl, {"ready", "processing"}, deadline, "the order");
  if (!done) return done.error();
  if (str(*done, "status") != "valid" || str(*done, "certificate").empty()) {
    return makeError(ErrorCode::failed_precondition,
                     "the order ended " + str(*done, "status") + " without a certificate");
  }
  auto chain = session.post(str(*done, "certificate"), {}, "application/pem-certificate-chain");
  if (!chain) return chain.error();
  if (chain->status != 200) return refused(*chain, "the certificate download", request.report);
  std::string chainPem = chain->body;
  std::string chainIssuer = topIssuerName(chainPem);
  if (!request.preferred_chain.empty() && chainIssuer != request.preferred_chain) {
    // RFC 8555 7.4.2: the other chains the CA offers; the first whose topmost certificate was
    // issued by the preferred name wins, else the default stays.
    for (const auto& url : alternateLinks(*chain)) {
      auto other = session.post(url, {}, "application/pem-certificate-chain");
      if (!other || other->status != 200) continue;
      if (topIssuerName(other->body) == request.preferred_chain) {
        chainPem = other->body;
        chainIssuer = request.preferred_chain;
        break;
      }
    }
  }
  auto [leaf, rest] = splitChain(chainPem);
  auto facts = inspectCertificate(leaf);
  if (!facts) return facts.error();
  ports::IssuedCertificate issued;
  issued.certificate_pem = std::move(leaf);
  issued.chain_pem = std::move(rest);
  issued.private_key_pem = certKey->privatePem();
  issued.serial_number = facts->serial_hex;
  issued.not_before = facts->not_before;
  issued.expires_at = facts->not_after;
  issued.suggested_renewal_at = suggestedRenewal(session, issued.certificate_pem);
  issued.replaced = !replaces.empty();
  issued.chain_issuer = std::move(chainIssuer);
  return issued;
}

domain::Result<ports::RenewalInfo> AcmeIssuer::renewalInfo(const domain::AcmeAccount& account,
                                                           const std::string& certificatePem) {
  Session session(settings_, account.directory_url);
  if (auto s = session.open(); !s) return s.error();
  const std::string base = session.url("renewalInfo");
  if (base.empty()) {
    return makeError(ErrorCode::failed_precondition,
                     "the CA offers no renewal information (no renewalInfo in its directory)");
  }
  auto id = ariCertId(certificatePem);
  if (!id) return id.error();
  auto r = session.get(base + (base.ends_with('/') ? "" : "/") + *id);
  if (!r) return r.error();
  if (r->status != 200) {
    return makeError(ErrorCode::unavailable,
                     "renewalInfo answered HTTP " + std::to_string(r->status),
                     "http_" + std::to_string(r->status));
  }
  auto window = parseRenewalInfo(r->body);
  if (!window) {
    return makeError(ErrorCode::unavailable,
                     "renewalInfo answered what is no renewal window: " + window.error().message);
  }
  ports::RenewalInfo info{window->start, window->end, window->explanation_url, std::nullopt};
  if (const auto after = rateLimitRetryAfter(*r)) {
    info.retry_after = domain::Timestamp{std::chrono::duration_cast<domain::Duration>(
                           std::chrono::system_clock::now().time_since_epoch())} +
                       *after;
  }
  return info;
}

domain::Status AcmeIssuer::revoke(const domain::AcmeAccount& account,
                                  const std::string& certificatePem) {
  auto der = pemToDer(certificatePem);
  if (!der) return der.error();
  auto key = accountKey(secrets_, account);
  if (!key) return key.error();
  if (account.account_url.empty()) {
    return makeError(ErrorCode::failed_precondition, "the account is not registered");
  }
  Session session(settings_, account.directory_url);
  if (auto s = session.open(); !s) return s;
  if (session.url("revokeCert").empty()) {
    return makeError(ErrorCode::failed_precondition, "the CA offers no revocation");
  }
  session.useKey(&key->key, account.account_url);
  auto r = session.post(session.url("revokeCert"),
                        json::serialize(json::object{{"certificate", base64UrlEncode(*der)}}));
  if (!r) return r.error();
  if (r->status != 200) return problem(*r, "the revocation");
  return {};
}

domain::Result<ports::AccountState> AcmeIssuer::rolloverKey(const domain::AcmeAccount& account) {
  if (account.account_url.empty()) {
    return makeError(ErrorCode::failed_precondition, "the account is not registered");
  }
  auto oldKey = accountKey(secrets_, account);
  if (!oldKey) return oldKey.error();
  auto newKey = KeyPair::generate(domain::KeyType::ecdsa_p256);
  if (!newKey) return newKey.error();
  auto sealed = secrets_.seal(newKey->privatePem());
  if (!sealed) return sealed.error();
  Session session(settings_, account.directory_url);
  if (auto s = session.open(); !s) return s.error();
  const std::string url = session.url("keyChange");
  if (url.empty()) return makeError(ErrorCode::failed_precondition, "the CA offers no keyChange");
  // RFC 8555 7.3.5: the inner JWS, signed by the new key with its JWK, names the account and
  // the old key; the outer one is an ordinary request signed by the old key.
  const std::string innerProtected =
      base64UrlEncode(R"({"alg":")" + newKey->alg() + R"(","jwk":)" + newKey->jwk() + R"(,"url":)" +
                      json::serialize(json::value(url)) + "}");
  const std::string innerPayload =
      base64UrlEncode(R"({"account":)" + json::serialize(json::value(account.account_url)) +
                      R"(,"oldKey":)" + oldKey->key.jwk() + "}");
  auto innerSignature = newKey->sign(innerProtected + "." + innerPayload);
  if (!innerSignature) return innerSignature.error();
  const std::string inner = R"({"protected":")" + innerProtected + R"(","payload":")" +
                            innerPayload + R"(","signature":")" + base64UrlEncode(*innerSignature) +
                            R"("})";
  session.useKey(&oldKey->key, account.account_url);
  auto r = session.post(url, inner);
  if (!r) return r.error();
  if (r->status != 200) return problem(*r, "the key change");
  return ports::AccountState{"valid", account.account_url, std::move(*sealed)};
}

domain::Result<domain::CaDirectoryMeta> AcmeIssuer::readDirectory(const std::string& directoryUrl,
                                                                  const std::string& trustBundle) {
  Session session(settings_, directoryUrl, nullptr, trustBundle);
  if (auto s = session.open(); !s) return s.error();
  domain::CaDirectoryMeta meta;
  meta.renewal_info = !session.url("renewalInfo").empty();
  const auto* m = session.directory().if_contains("meta");
  if (m == nullptr || !m->is_object()) return meta;
  const auto& o = m->as_object();
  if (const auto* profiles = o.if_contains("profiles");
      profiles != nullptr && profiles->is_object()) {
    for (const auto& [name, description] : profiles->as_object()) {
      if (meta.profiles.size() >= 50) break;
      meta.profiles.push_back(
          {std::string(name),
           description.is_string() ? std::string(description.as_string()).substr(0, 2000) : ""});
    }
  }
  if (const auto* caa = o.if_contains("caaIdentities"); caa != nullptr && caa->is_array()) {
    for (const auto& v : caa->as_array()) {
      if (v.is_string() && meta.caa_identities.size() < 20) {
        meta.caa_identities.emplace_back(v.as_string());
      }
    }
  }
  if (const auto* eab = o.if_contains("externalAccountRequired");
      eab != nullptr && eab->is_bool()) {
    meta.external_account_required = eab->as_bool();
  }
  return meta;
}

ports::IssuerInfo AcmeIssuer::info() const {
  return ports::IssuerInfo{"acme",
                           "ACME (RFC 8555)",
                           {"dns-01", "http-01"},
                           {"eab", "ari", "key_rollover", "revocation"}};
}

}  // namespace certsteward::adapters::acme
