// Answers of the HTTP-01 listener.
#include <certsteward/adapters/http/acme_challenge_listener.hpp>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

namespace certsteward::adapters::http {
namespace {

constexpr std::string_view kPrefix = "/.well-known/acme-challenge/";

HttpResponse text(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/plain";
  r.body = std::move(body);
  return r;
}

// A token as RFC 8555 8.1 makes them (base64url); anything else is never looked up.
bool isToken(std::string_view token) {
  return !token.empty() && token.size() <= 256 &&
         std::all_of(token.begin(), token.end(), [](char c) {
           return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
         });
}

}  // namespace

HttpApplication acmeChallengeResponder(ChallengeLookup lookup) {
  HttpApplication app;
  app.blocking = [](const HttpRequest&) { return true; };  // the store is asked
  app.handle = [lookup = std::move(lookup)](const HttpRequest& request) {
    const std::string_view path = request.path;
    if (!path.starts_with(kPrefix) || !isToken(path.substr(kPrefix.size()))) {
      return text(404, "not found\n");
    }
    if (request.method != "GET") {
      auto r = text(405, "only GET\n");
      r.headers.emplace_back("Allow", "GET");
      return r;
    }
    auto found = lookup(std::string(path.substr(kPrefix.size())));
    if (!found) return text(503, "try again\n");
    if (!*found) return text(404, "no such challenge\n");
    auto r = text(200, **found);
    r.content_type = "application/octet-stream";
    r.headers.emplace_back("Cache-Control", "no-store");
    return r;
  };
  return app;
}

}  // namespace certsteward::adapters::http
