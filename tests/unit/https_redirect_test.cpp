// The redirect-only plain-HTTP listener: where each request is sent.
#include <doctest/doctest.h>

#include <certsteward/adapters/http/https_redirect.hpp>

using certsteward::adapters::http::HttpRequest;
using certsteward::adapters::http::httpsLocation;
using certsteward::adapters::http::httpsRedirect;

TEST_CASE("https redirect: the asked host and path on https, a hostile Host never echoed") {
  struct Row {
    const char* host;  // nullptr: no Host header
    const char* path;
    std::map<std::string, std::string> query;
    std::uint16_t port;
    const char* location;
  };
  const Row rows[] = {
      {"certs.example.com", "/ui/", {}, 443, "https://certs.example.com/ui/"},
      {"certs.example.com:80", "/ui/", {}, 8443, "https://certs.example.com:8443/ui/"},
      {"[2001:db8::1]:8080", "/", {}, 443, "https://[2001:db8::1]/"},
      {"localhost",
       "/api/v1/x",
       {{"a b", "c&d"}, {"page", "2"}},
       9443,
       "https://localhost:9443/api/v1/x?a%20b=c%26d&page=2"},
      {nullptr, "/", {}, 443, "https://10.0.0.5/"},
      {"evil\"host", "/", {}, 443, "https://10.0.0.5/"},
      {"a/b@evil.example", "/", {}, 443, "https://10.0.0.5/"},
      {"[::1]x", "/", {}, 443, "https://10.0.0.5/"},
      {"localhost:80x", "/", {}, 443, "https://10.0.0.5/"},
      {"localhost:", "/", {}, 443, "https://10.0.0.5/"},
      {"", "*", {}, 443, "https://10.0.0.5/"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.location);
    HttpRequest r;
    r.method = "GET";
    r.path = row.path;
    r.query = row.query;
    if (row.host != nullptr) r.headers["host"] = row.host;
    CHECK(httpsLocation(r, "10.0.0.5", row.port) == row.location);
  }
  HttpRequest r;
  r.path = "/";
  CHECK(httpsLocation(r, "::1", 443) == "https://[::1]/");

  const auto app = httpsRedirect("127.0.0.1", 8443);
  r.method = "POST";
  r.path = "/api/v1/auth/login";
  const auto answer = app.handle(r);
  CHECK(answer.status == 308);  // the method and body are kept by the client
  REQUIRE(answer.headers.size() == 1);
  CHECK(answer.headers[0].second == "https://127.0.0.1:8443/api/v1/auth/login");
}
