// One HTTP POST (or GET) through libcurl for adapters that call out to receivers (notification
// channels, webhooks, identity providers): only to the URL given (https, or http to a loopback
// host), no redirects, no proxy, the server certificate always verified (optionally against a PEM
// CA bundle), connect and total time bounded, the answer's body read up to a limit. Errors never
// quote the URL's path or query (they may hold a token), only its host and port. With an
// outbound policy (every connection a project's settings aim), the host must pass it, the
// connection goes only to the addresses checked, and every transport failure is the one phrase
// "could not connect to host:port" (the detail goes to the server log). Thread-safe (one curl
// handle per call).
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/result.hpp>

namespace certsteward::adapters::common {

class Outbound;

struct HttpRequest {
  std::string url;
  std::vector<std::string> headers;  // "Name: value" lines, already checked by the caller
  std::string body;
  std::string ca_pem;  // trusted instead of the system's CAs when not empty
  std::chrono::milliseconds timeout{10000};
  std::size_t response_limit = 64 * 1024;  // bytes of the answer's body kept; the rest unread
  std::vector<std::string> secrets = {};   // masked wherever libcurl's own words are quoted
  const Outbound* outbound = nullptr;      // the policy for a project-aimed connection
  bool connect_only = false;               // connect (and for https, handshake); send nothing
};

struct HttpResponse {
  long status = 0;
  std::string body;  // at most response_limit bytes
  long long retry_after_seconds =
      0;  // the answer's Retry-After (seconds, or until its date); 0: none
};

// The reason of the error postHttp gives when the time ran out.
inline constexpr const char* kTimedOut = "timed_out";

// Any answer, whatever its status. Errors: failed_precondition when the URL is not an https URL
// (or http to a loopback host) or the server's certificate is not trusted; unavailable when the
// host cannot be reached, the time runs out or the connection breaks ("cannot connect to
// host:port ...").
domain::Result<HttpResponse> postHttp(const HttpRequest& request);
// The same rules for a GET (the request's body is not sent).
domain::Result<HttpResponse> getHttp(const HttpRequest& request);
// The same rules for GET, POST, PATCH, PUT or DELETE (a body sent with all but GET): for APIs
// that use them (DNS providers).
domain::Result<HttpResponse> sendHttp(std::string_view method, const HttpRequest& request);

// Whether `host` names this machine: localhost, 127.0.0.0/8 or ::1 (brackets allowed).
bool isLoopbackHost(std::string_view host);

// Connects (and for https completes the handshake) under the same rules, sending no request.
domain::Status reachHttp(const HttpRequest& request);

// Whether `url` is an https URL, or an http URL to a loopback host.
bool isAllowedHttpUrl(const std::string& url);

// Lower-case hex of HMAC-SHA256(key, message): request signatures.
std::string hmacSha256Hex(std::string_view key, std::string_view message);

// `text` with every occurrence of each non-empty secret replaced by "[redacted]".
std::string maskSecrets(std::string text, const std::vector<std::string>& secrets);

// Calls curl_global_init once per process (also done by postHttp).
void initCurlOnce();

}  // namespace certsteward::adapters::common
