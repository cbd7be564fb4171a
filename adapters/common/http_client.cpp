// libcurl POSTs with the restrictions of http_client.hpp, and HMAC-SHA256 signatures (OpenSSL).
#include <certsteward/adapters/common/http_client.hpp>

#include <curl/curl.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <memory>
#include <mutex>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/domain/encoding.hpp>

namespace certsteward::adapters::common {

using domain::ErrorCode;
using domain::makeError;

namespace {

struct UrlDeleter {
  void operator()(CURLU* url) const { curl_url_cleanup(url); }
};
struct EasyDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct ListDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};
using UrlHandle = std::unique_ptr<CURLU, UrlDeleter>;

std::string urlPart(CURLU* url, CURLUPart part, unsigned flags = 0) {
  char* text = nullptr;
  if (curl_url_get(url, part, &text, flags) != CURLUE_OK || text == nullptr) return {};
  std::string out(text);
  curl_free(text);
  return out;
}

// A URL as libcurl reads it; empty `handle` when it does not parse or names no host.
struct ParsedUrl {
  UrlHandle handle;
  std::string scheme;
  std::string host;
  std::string port;  // the scheme's default when none is written
  std::string hostPort() const { return host + ":" + port; }
};

ParsedUrl parseUrl(const std::string& url) {
  ParsedUrl out;
  UrlHandle parsed(curl_url());
  if (!parsed || curl_url_set(parsed.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) return {};
  out.scheme = urlPart(parsed.get(), CURLUPART_SCHEME);
  out.host = urlPart(parsed.get(), CURLUPART_HOST);
  out.port = urlPart(parsed.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT);
  if (out.host.empty()) return {};
  out.handle = std::move(parsed);
  return out;
}

// Whether it may be called: https, or http to a loopback host (with `loopbackPinned`, also a
// name whose every checked address is loopback).
bool allowedScheme(const ParsedUrl& url, bool loopbackPinned) {
  return url.scheme == "https" ||
         (url.scheme == "http" && (isLoopbackHost(url.host) || loopbackPinned));
}

struct Sink {
  std::string* body;
  std::size_t limit;
  bool full = false;
};

std::size_t collect(char* data, std::size_t size, std::size_t count, void* out) {
  auto* sink = static_cast<Sink*>(out);
  const std::size_t bytes = size * count;
  const std::size_t room = sink->limit - std::min(sink->limit, sink->body->size());
  if (bytes > room) {  // keep what fits and stop reading: the rest is never downloaded
    sink->body->append(data, room);
    sink->full = true;
    return 0;
  }
  sink->body->append(data, bytes);
  return bytes;
}

domain::Error transportError(CURLcode rc, const char* detailBuffer, const std::string& hostPort,
                             std::chrono::milliseconds timeout,
                             const std::vector<std::string>& secrets) {
  const std::string detail =
      maskSecrets(detailBuffer[0] != '\0' ? detailBuffer : curl_easy_strerror(rc), secrets);
  switch (rc) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
      return makeError(ErrorCode::failed_precondition,
                       "the TLS certificate of " + hostPort + " is not trusted: " + detail);
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
      return makeError(ErrorCode::unavailable, "cannot connect to " + hostPort + ": " + detail);
    case CURLE_SSL_CONNECT_ERROR:
      return makeError(ErrorCode::unavailable,
                       "the TLS handshake with " + hostPort + " failed: " + detail);
    case CURLE_OPERATION_TIMEDOUT:
      return makeError(
          ErrorCode::unavailable,
          hostPort + " did not answer within " + std::to_string(timeout.count()) + " ms: " + detail,
          kTimedOut);
    default:
      return makeError(ErrorCode::unavailable,
                       "the exchange with " + hostPort + " failed: " + detail);
  }
}

}  // namespace

void initCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool isLoopbackHost(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host == "localhost" || host == "::1") return true;
  // 127.x.y.z, four decimal parts.
  int parts = 0;
  bool first127 = false;
  std::size_t start = 0;
  while (start <= host.size()) {
    const std::size_t dot = std::min(host.find('.', start), host.size());
    const std::string_view part = host.substr(start, dot - start);
    int value = -1;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || part.size() > 3 || ec != std::errc() || end != part.data() + part.size() ||
        value > 255) {
      return false;
    }
    if (parts == 0) first127 = value == 127;
    ++parts;
    start = dot + 1;
  }
  return parts == 4 && first127;
}

bool isAllowedHttpUrl(const std::string& url) {
  const ParsedUrl parsed = parseUrl(url);
  return parsed.handle && allowedScheme(parsed, false);
}

std::string hmacSha256Hex(std::string_view key, std::string_view message) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), out, &length);
  return domain::toHex(std::string_view(reinterpret_cast<const char*>(out), length));
}

std::string maskSecrets(std::string text, const std::vector<std::string>& secrets) {
  std::vector<std::string> ordered(secrets.begin(), secrets.end());
  std::sort(ordered.begin(), ordered.end(),
            [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  for (const auto& secret : ordered) {
    if (secret.empty()) continue;
    for (std::size_t at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + 10)) {
      text.replace(at, secret.size(), "[redacted]");
    }
  }
  return text;
}

namespace {

// `method`: "GET", "POST", or another method that sends the body ("PATCH", "PUT", "DELETE").
domain::Result<HttpResponse> perform(const HttpRequest& request, std::string_view method) {
  const bool post = method != "GET";
  initCurlOnce();
  const auto notAllowed = [] {
    return makeError(ErrorCode::failed_precondition,
                     "the URL is not an https URL (http is allowed for a loopback host only)");
  };
  const ParsedUrl url = parseUrl(request.url);
  // A name may still turn out to stay on this machine (checked once pinned, below).
  if (!url.handle || !allowedScheme(url, request.outbound != nullptr)) return notAllowed();
  const std::string& scheme = url.scheme;
  const std::string hostPort = url.hostPort();
  const std::unique_ptr<CURL, EasyDeleter> curl(curl_easy_init());
  if (!curl) return makeError(ErrorCode::internal, "libcurl could not start a request");
  CURL* h = curl.get();
  CurlPin pin;
  if (request.outbound != nullptr) {
    if (auto pinned =
            pin.pin(h, *request.outbound, url.host, std::strtol(url.port.c_str(), nullptr, 10));
        !pinned) {
      // Plain http to a name that does not resolve: refused as http, not as a lost connection.
      if (!allowedScheme(url, false) && pinned.error().reason != kOutboundRefused) {
        return notAllowed();
      }
      return pinned.error();
    }
    // http to a name is allowed only when it stays on this machine.
    if (!allowedScheme(url, pin.loopbackOnly())) return notAllowed();
  }
  const long ms = static_cast<long>(std::max<std::chrono::milliseconds::rep>(
      1, std::min<std::chrono::milliseconds::rep>(request.timeout.count(), 24L * 3600 * 1000)));
  char errors[CURL_ERROR_SIZE] = {};
  curl_easy_setopt(h, CURLOPT_CURLU, url.handle.get());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, scheme.c_str());
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_PROXY, "");  // the configured URL and nothing else
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, ms);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, ms);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "certsteward");
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errors);
  if (!request.ca_pem.empty()) {
    curl_blob blob{const_cast<char*>(request.ca_pem.data()), request.ca_pem.size(), CURL_BLOB_COPY};
    curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &blob);
  }
  curl_slist* raw = curl_slist_append(nullptr, "Expect:");  // no 100-continue round trip
  const std::unique_ptr<curl_slist, ListDeleter> headers(raw);
  for (const auto& line : request.headers)
    raw = curl_slist_append(raw, line.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, raw);
  if (request.connect_only) {
    curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 1L);
  } else if (post) {
    curl_easy_setopt(h, CURLOPT_POST, 1L);
    const std::string verb(method);  // libcurl copies it
    if (verb != "POST") curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, verb.c_str());
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  } else {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  }
  HttpResponse response;
  Sink sink{&response.body, request.response_limit};
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  const CURLcode rc = curl_easy_perform(h);
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &response.status);
  curl_off_t retryAfter = 0;
  if (curl_easy_getinfo(h, CURLINFO_RETRY_AFTER, &retryAfter) == CURLE_OK && retryAfter > 0) {
    response.retry_after_seconds = static_cast<long long>(retryAfter);
  }
  if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && sink.full && response.status != 0)) {
    std::vector<std::string> secrets = request.secrets;
    secrets.push_back(request.url);
    for (const CURLUPart part :
         {CURLUPART_PATH, CURLUPART_QUERY, CURLUPART_USER, CURLUPART_PASSWORD}) {
      if (std::string text = urlPart(url.handle.get(), part); text.size() > 1)
        secrets.push_back(text);
    }
    auto error = transportError(rc, errors, hostPort, std::chrono::milliseconds{ms}, secrets);
    if (request.outbound != nullptr) {  // one phrase, whatever the cause: no network map
      logOutboundDetail(hostPort, pin.refusedSocket()
                                      ? "an address outside the checked ones was refused"
                                      : error.message);
      return makeError(ErrorCode::unavailable, couldNotConnect(hostPort));
    }
    return error;
  }
  return response;
}

}  // namespace

domain::Result<HttpResponse> postHttp(const HttpRequest& request) {
  return perform(request, "POST");
}

domain::Result<HttpResponse> getHttp(const HttpRequest& request) {
  return perform(request, "GET");
}

domain::Result<HttpResponse> sendHttp(std::string_view method, const HttpRequest& request) {
  if (method != "GET" && method != "POST" && method != "PATCH" && method != "PUT" &&
      method != "DELETE") {
    return makeError(ErrorCode::invalid_argument, "unsupported HTTP method");
  }
  return perform(request, method);
}

domain::Status reachHttp(const HttpRequest& request) {
  HttpRequest connect = request;
  connect.connect_only = true;
  auto done = perform(connect, "GET");
  if (!done) return done.error();
  return {};
}

}  // namespace certsteward::adapters::common
