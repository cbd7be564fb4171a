// Answers of the HTTP-01 listener.
#include <certsteward/adapters/http/acme_challenge_listener.hpp>

#include <string_view>
#include <utility>

#include <certsteward/domain/encoding.hpp>

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

}  // namespace

HttpApplication acmeChallengeResponder(ChallengeLookup lookup) {
  HttpApplication app;
  // Only a request for a well-formed token asks the store (on the pool); noise is answered on
  // the reactor and never queues ahead of the CA's fetch.
  app.blocking = [](const HttpRequest& request) {
    const std::string_view path = request.path;
    return request.method == "GET" && path.starts_with(kPrefix) &&
           domain::isAcmeToken(path.substr(kPrefix.size()));
  };
  app.handle = [lookup = std::move(lookup)](const HttpRequest& request) {
    const std::string_view path = request.path;
    if (!path.starts_with(kPrefix) || !domain::isAcmeToken(path.substr(kPrefix.size()))) {
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
