// The request pipeline of /api/v1 and the error table.
#include <certsteward/adapters/rest/api.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <optional>
#include <vector>

#include <certsteward/adapters/http/compression.hpp>
#include <certsteward/adapters/rest/csv.hpp>
#include <certsteward/adapters/rest/json_io.hpp>
#include <certsteward/domain/issuance_policy.hpp>

namespace certsteward::adapters::rest {
namespace {

using domain::ErrorCode;

bool isMutation(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH" || method == "DELETE";
}

bool hasBodyMethod(const std::string& method) {
  return method == "POST" || method == "PUT" || method == "PATCH";
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool isJsonContentType(const std::string& value) {
  const std::string v = lower(value);
  return v == "application/json" || v.starts_with("application/json;");
}

// The lower-case error word of an authentication failure.
std::string authWord(const std::string& reason) {
  if (reason == "TOKEN_EXPIRED") return "expired_token";
  if (reason == "TOKEN_MISSING") return "token_missing";
  if (reason == "TOKEN_REUSE") return "token_reuse";
  if (reason == "INVALID_CREDENTIALS") return "invalid_credentials";
  return "token_invalid";
}

}  // namespace

HttpResponse errorResponse(int status, const std::string& message) {
  return jsonResponse(status, json::object{{"error", message}});
}

HttpResponse errorResponse(const domain::Error& e) {
  switch (e.code) {
    case ErrorCode::not_found:
      return errorResponse(404, e.message);
    case ErrorCode::invalid_argument:  // malformed input is 400, a broken rule 422
      if (e.reason == domain::kPolicyViolation) {
        json::array violations;
        for (const auto& v : e.references) {  // "<rule>: <message>"
          const auto colon = v.find(": ");
          violations.push_back(json::object{
              {"rule", v.substr(0, colon)},
              {"message", colon == std::string::npos ? std::string() : v.substr(colon + 2)}});
        }
        return jsonResponse(422, json::object{{"error", "policy_violation"},
                                              {"message", e.message},
                                              {"violations", std::move(violations)}});
      }
      if (e.reason == domain::kInvalidField && !e.references.empty()) {
        return jsonResponse(422, json::object{{"error", e.message}, {"field", e.references[0]}});
      }
      return errorResponse(e.reason == domain::kMalformed ? 400 : 422, e.message);
    case ErrorCode::failed_precondition:
      return errorResponse(409, e.message);
    case ErrorCode::permission_denied:
      return errorResponse(403, e.message);
    case ErrorCode::conflict: {
      if (e.reason != "DEPENDENCY_CONFLICT") return errorResponse(409, e.message);
      json::array refs;
      for (const auto& r : e.references)
        refs.push_back(json::value(r));
      return jsonResponse(409,
                          json::object{{"error", e.message},
                                       {"code", "DEPENDENCY_CONFLICT"},
                                       {"references", refs},
                                       {"suggestion", "delete or move what refers to it first"}});
    }
    case ErrorCode::unauthenticated: {
      const std::string code = e.reason.empty() ? "TOKEN_INVALID" : e.reason;
      auto r = jsonResponse(
          401, json::object{{"error", authWord(code)}, {"code", code}, {"message", e.message}});
      r.headers.emplace_back("WWW-Authenticate", "Bearer");
      return r;
    }
    case ErrorCode::resource_exhausted: {
      if (e.reason == "RATE_LIMITED") {
        auto r = errorResponse(429, e.message);
        r.headers.emplace_back("Retry-After", "60");
        return r;
      }
      return errorResponse(409, e.message);  // licence limit
    }
    case ErrorCode::unavailable:
      return errorResponse(503, e.message);
    case ErrorCode::internal:
      break;
  }
  spdlog::error("internal error: {}", e.message);
  return errorResponse(500, "internal error");
}

Api::Api(ApiServices services, ApiOptions options) : s_(services), options_(options) {
  addAuthRoutes();
  addOidcRoutes();
  addProjectRoutes();
  addUserRoutes();
  addAuditRoutes();
  addCertificateRoutes();
  addJobRoutes();
  addResourceRoutes();
  addDistributionRoutes();
  addNotificationRoutes();
  addSettingsRoutes();
  addCaProviderRoutes();
  addCatalogRoutes();
}

http::HttpApplication Api::application(Fallback otherPaths) {
  return {[this, otherPaths = std::move(otherPaths)](const HttpRequest& r) {
            return serve(r, otherPaths);
          },
          [](const HttpRequest& r) {
            // Writes, and the single sign-on steps that wait on the identity provider, run on
            // the request pool, never on the threads that serve every connection.
            // So do a CSV export, which reads every matching certificate, and a challenge
            // plan, which asks the DNS.
            const bool csv = r.path.ends_with("/certificates") && asksForCsv(r);
            const bool asksDns = r.path.ends_with("/challenge-plan");
            return (r.method != "GET" && r.method != "HEAD" && r.path.starts_with("/api/")) ||
                   r.path.starts_with("/api/v1/auth/oidc/") || csv || asksDns;
          },
          [this] { return ready(); }};
}

HttpResponse Api::serve(const HttpRequest& request, const Fallback& otherPaths) {
  if (request.path.starts_with("/api/")) {
    auto r = handle(request);
    http::compressFor(request, r);  // gzip above 1 KiB when asked (docs/api.md, Compression)
    return r;
  }
  if (request.path == "/api") return errorResponse(404, "not found");
  if (request.path != "/metrics") {
    return otherPaths ? otherPaths(request) : errorResponse(404, "not found");
  }
  if (request.method != "GET" && request.method != "HEAD") {
    auto r = errorResponse(405, "method not allowed");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  HttpResponse r;
  r.content_type = "text/plain; version=0.0.4";
  r.body = metricsText();
  http::compressFor(request, r);
  return r;
}

bool Api::ready() {
  const auto ping = s_.monitoring.ready();
  if (!ping) spdlog::warn("readyz: store ping failed: {}", ping.error().message);
  return ping.ok();
}

HttpResponse Api::handle(const HttpRequest& request) {
  const auto start = std::chrono::steady_clock::now();
  HttpResponse response;
  std::string route = "unmatched";
  std::string actor;
  try {
    response = dispatch(request, route, actor);
  } catch (const BadRequest& e) {
    response = errorResponse(400, e.what());
  } catch (const std::exception& e) {
    spdlog::error("request {} failed: {}", request.request_id, e.what());
    response = errorResponse(500, "internal error");
  }
  s_.metrics.increment(
      "certsteward_http_requests_total",
      {{"route", route}, {"method", request.method}, {"status", std::to_string(response.status)}},
      1.0);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  s_.metrics.observe("certsteward_http_request_duration_seconds", {{"route", route}}, seconds);
  if (options_.on_access) {
    options_.on_access(AccessRecord{request.request_id, request.method, route, response.status,
                                    seconds * 1000.0, actor, request.client_ip});
  }
  return response;
}

std::string Api::metricsText() {
  return s_.metrics.exposition(s_.monitoring.gauges());
}

HttpResponse Api::dispatch(const HttpRequest& request, std::string& routeLabel,
                           std::string& actor) {
  const auto match = router_.match(request.method, request.path);
  if (match.route != nullptr) routeLabel = match.route->pattern;
  if (match.route == nullptr) {
    if (!match.allowed.empty()) {
      auto r = errorResponse(405, "method not allowed");
      std::string allow;
      for (const auto& m : match.allowed)
        allow += (allow.empty() ? "" : ", ") + m;
      r.headers.emplace_back("Allow", allow);
      return r;
    }
    return errorResponse(404, "not found");
  }
  // Conventions 1: mutations carry JSON.
  if (hasBodyMethod(request.method)) {
    const auto type = request.header("content-type");
    if ((type && !isJsonContentType(*type)) || (!type && !request.body.empty())) {
      return errorResponse(415, "Content-Type must be application/json");
    }
  }
  services::RequestContext ctx{request.client_ip, request.request_id};
  if (!match.route->options.authenticated) {
    Call call{request, match.params, nullptr, ctx};
    return withIdempotency(request, call, *match.route);
  }
  // Authentication: Bearer header, else the access_token cookie.
  std::string token;
  if (const auto auth = request.header("authorization")) {
    if (!auth->starts_with("Bearer ") || auth->size() <= 7 ||
        auth->find_first_of(" \t\r\n", 7) != std::string::npos) {
      return errorResponse(domain::makeError(
          ErrorCode::unauthenticated, "Authorization must be 'Bearer <token>'", "TOKEN_INVALID"));
    }
    token = auth->substr(7);
  } else if (const auto it = request.cookies.find("access_token"); it != request.cookies.end()) {
    token = it->second;
  }
  if (token.empty()) {
    return errorResponse(
        domain::makeError(ErrorCode::unauthenticated, "no access token", "TOKEN_MISSING"));
  }
  auto principal = s_.auth.authenticate(token);
  if (!principal) return errorResponse(principal.error());
  actor = principal->user.id;
  // CSRF double submit for cookie sessions (a request that sends cookies is one), bound to the
  // session: the token must also be the one issued to this access token's session.
  if (isMutation(request.method) && !request.cookies.empty()) {
    const auto cookie = request.cookies.find("csrf_token");
    const auto header = request.header("x-csrf-token");
    if (cookie == request.cookies.end() || cookie->second.empty() || !header ||
        *header != cookie->second || !s_.auth.csrfMatches(*principal, *header)) {
      return errorResponse(403, "missing or wrong X-CSRF-Token");
    }
  }
  Call call{request, match.params, &*principal, ctx};
  return withIdempotency(request, call, *match.route);
}

HttpResponse Api::withIdempotency(const HttpRequest& request, const Call& call,
                                  const Route& route) {
  const auto key = request.header("idempotency-key");
  if (!key || !isMutation(request.method)) return route.handler(call);
  services::IdempotentRequest keyed{call.principal, request.client_ip, std::nullopt,
                                    request.method, request.path,      *key,
                                    request.body};
  if (const auto project = call.params.find("project_id"); project != call.params.end()) {
    keyed.project_id = project->second;
  }
  auto lookup = s_.idempotency.lookup(keyed);
  if (!lookup) return errorResponse(lookup.error());
  if (lookup->replay) {
    HttpResponse replay;
    replay.status = lookup->replay->status;
    replay.content_type = lookup->replay->content_type;
    replay.body = lookup->replay->body;
    replay.headers.emplace_back("Idempotent-Replayed", "true");
    return replay;
  }
  HttpResponse response = route.handler(call);
  // Session responses carry tokens and downloads carry key material: they are never kept.
  if (response.status < 500 && response.cookies.empty() &&
      response.content_type == "application/json" && !request.path.starts_with("/api/v1/auth/")) {
    s_.idempotency.keep(*lookup, {response.status, response.content_type, response.body});
  }
  return response;
}

}  // namespace certsteward::adapters::rest
