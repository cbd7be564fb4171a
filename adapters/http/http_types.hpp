// The HTTP request and response as the API handlers see them: plain values, no Pistache, so
// handlers are testable and Pistache stays in http_server.cpp.
#pragma once

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

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<SetCookie> cookies;
};

}  // namespace certsteward::adapters::http
