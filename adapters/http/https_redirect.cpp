// Redirects of the plain-HTTP listener to the TLS one.
#include <certsteward/adapters/http/https_redirect.hpp>

#include <algorithm>
#include <cctype>
#include <utility>

#include <certsteward/domain/encoding.hpp>

namespace certsteward::adapters::http {
namespace {

// The host of a Host header ("name", "name:port", "[v6]", "[v6]:port") when it is a plain host
// name or address; empty otherwise (never echoed into a Location).
std::string hostOf(const std::string& header) {
  if (header.empty() || header.size() > 255) return {};
  const bool bracketed = header.front() == '[';
  const auto end = bracketed ? header.find(']') : header.find(':');
  const std::string host =
      bracketed ? (end == std::string::npos ? std::string() : header.substr(0, end + 1))
                : header.substr(0, end);
  // After the host: nothing, or ":" and a port.
  const std::string rest = header.substr(std::min(header.size(), host.size()));
  const bool portOk = rest.empty() || (rest.size() > 1 && rest.size() <= 6 && rest[0] == ':' &&
                                       std::all_of(rest.begin() + 1, rest.end(), [](char c) {
                                         return std::isdigit(static_cast<unsigned char>(c)) != 0;
                                       }));
  if (host.empty() || !portOk) return {};
  if (bracketed) {
    const bool address =
        host.size() > 2 && std::all_of(host.begin() + 1, host.end() - 1, [](char c) {
          return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == ':' || c == '.';
        });
    return address ? host : std::string();
  }
  const bool name = std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-';
  });
  return name ? host : std::string();
}

}  // namespace

std::string httpsLocation(const HttpRequest& request, const std::string& fallbackHost,
                          std::uint16_t httpsPort) {
  std::string host = hostOf(request.header("host").value_or(""));
  if (host.empty()) {
    host = fallbackHost.find(':') != std::string::npos && fallbackHost.front() != '['
               ? "[" + fallbackHost + "]"
               : fallbackHost;
  }
  std::string location = "https://" + host;
  if (httpsPort != 443) location += ":" + std::to_string(httpsPort);
  location += request.path.empty() || request.path.front() != '/' ? "/" : request.path;
  // The parser keeps the query decoded; it is encoded again (in name order).
  char separator = '?';
  for (const auto& [name, value] : request.query) {
    location += separator;
    location += domain::percentEncode(name);
    location += '=';
    location += domain::percentEncode(value);
    separator = '&';
  }
  return location;
}

HttpApplication httpsRedirect(std::string fallbackHost, std::uint16_t httpsPort) {
  HttpApplication app;
  app.handle = [fallbackHost = std::move(fallbackHost), httpsPort](const HttpRequest& request) {
    HttpResponse response;
    response.status = 308;
    response.headers.emplace_back("Location", httpsLocation(request, fallbackHost, httpsPort));
    response.body = R"({"error":"this address is served over HTTPS"})";
    return response;
  };
  return app;
}

}  // namespace certsteward::adapters::http
