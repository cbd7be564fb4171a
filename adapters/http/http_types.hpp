// The HTTP request and response as the API handlers see them: plain values, no Pistache, so
// handlers are testable and Pistache stays in http_server.cpp.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace certsteward::adapters::http {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // without the query string
  std::map<std::string, std::string> query;
  std::map<std::string, std::string> headers;  // names lower-cased
  std::map<std::string, std::string> cookies;
  std::string body;
  std::string client_ip;  // after the trusted-proxy rule
  std::string request_id;

  std::optional<std::string> header(const std::string& lowerName) const {
    const auto it = headers.find(lowerName);
    if (it == headers.end()) return std::nullopt;
    return it->second;
  }
};

struct SetCookie {
  std::string name;
  std::string value;
  std::string path = "/";
  std::optional<long long> max_age;  // seconds; 0 deletes
  bool http_only = true;
  bool secure = false;
};

// One step of a body written as it is made: more to come, the end, or a failure that leaves the
// answer cut short (the connection closes without the last chunk, so the client knows).
enum class BodyStep { more, done, failed };
// Appends the next piece of a streamed body to `out` (it may append nothing).
using BodySource = std::function<BodyStep(std::string& out)>;

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // Set: the answer goes out with chunked transfer coding, `body` first and then the source's
  // pieces, asked for on the request pool one at a time as the client takes them, so a large
  // answer is never held whole. Only for requests the application marks blocking (served on
  // the pool); elsewhere, and to HTTP/1.0 clients, the source is read to its end into `body`.
  BodySource stream;
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<SetCookie> cookies;
};

}  // namespace certsteward::adapters::http
