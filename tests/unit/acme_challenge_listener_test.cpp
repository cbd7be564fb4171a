// The HTTP-01 listener's answers: the key authorization of a known token, 404 for anything else
// (an unknown token, a path outside the challenge directory, a token that is not base64url,
// which is never looked up), 405 for other methods, 503 when the store does not answer; only a
// request that asks the store runs on the request pool.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <certsteward/adapters/http/acme_challenge_listener.hpp>

using certsteward::adapters::http::acmeChallengeResponder;
using certsteward::adapters::http::HttpRequest;
namespace domain = certsteward::domain;

TEST_CASE("http-01 listener: known tokens answered, everything else refused") {
  std::vector<std::string> asked;
  bool storeDown = false;
  auto app = acmeChallengeResponder(
      [&](const std::string& token) -> domain::Result<std::optional<std::string>> {
        asked.push_back(token);
        if (storeDown) return domain::makeError(domain::ErrorCode::unavailable, "db down at x:1");
        if (token == "tok_en-1") return std::optional<std::string>("tok_en-1.thumbprint");
        return std::optional<std::string>();
      });
  REQUIRE(app.handle);
  REQUIRE(app.blocking);
  const struct {
    const char* method;
    const char* path;
    int status;
    const char* body;  // nullptr: not checked
    bool looked_up;
  } rows[] = {
      {"GET", "/.well-known/acme-challenge/tok_en-1", 200, "tok_en-1.thumbprint", true},
      {"GET", "/.well-known/acme-challenge/unknown", 404, nullptr, true},
      {"GET", "/.well-known/acme-challenge/", 404, nullptr, false},
      {"GET", "/.well-known/acme-challenge/../../etc/passwd", 404, nullptr, false},
      {"GET", "/.well-known/acme-challenge/a.b", 404, nullptr, false},
      {"GET", "/.well-known/acme-challenge/tok en", 404, nullptr, false},
      {"GET", "/api/v1/projects", 404, nullptr, false},
      {"GET", "/", 404, nullptr, false},
      {"POST", "/.well-known/acme-challenge/tok_en-1", 405, nullptr, false},
      {"DELETE", "/.well-known/acme-challenge/tok_en-1", 405, nullptr, false},
  };
  for (const auto& row : rows) {
    CAPTURE(row.method);
    CAPTURE(row.path);
    asked.clear();
    HttpRequest r;
    r.method = row.method;
    r.path = row.path;
    CHECK(app.blocking(r) == row.looked_up);  // only a store lookup waits on the pool
    const auto response = app.handle(r);
    CHECK(response.status == row.status);
    if (row.body != nullptr) CHECK(response.body == row.body);
    CHECK(asked.empty() != row.looked_up);
  }
  // A store that does not answer: 503, and none of its words.
  storeDown = true;
  HttpRequest r;
  r.method = "GET";
  r.path = "/.well-known/acme-challenge/tok_en-1";
  const auto down = app.handle(r);
  CHECK(down.status == 503);
  CHECK(down.body.find("db down") == std::string::npos);
}
