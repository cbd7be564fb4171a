// Router: method + path pattern ("/api/v1/projects/:project_id") to a handler, with the path
// parameters. A path that exists under another method is reported so the caller answers 405.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <certsteward/adapters/rest/http_messages.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>

namespace certsteward::adapters::rest {

using PathParams = std::map<std::string, std::string>;

struct RouteOptions {
  bool authenticated = true;  // false: login, refresh, OTP verify
};

// What a handler gets: the request, its path parameters, the authenticated caller (null on
// public routes) and the request context for audit entries.
struct Call {
  const HttpRequest& request;
  const PathParams& params;
  const services::Principal* principal;
  services::RequestContext context;

  const services::Principal& who() const { return *principal; }
  const std::string& param(const std::string& name) const { return params.at(name); }
};

using Handler = std::function<HttpResponse(const Call&)>;

struct Route {
  std::string method;
  std::string pattern;                // as registered, the route label of metrics
  std::vector<std::string> segments;  // ":name" segments capture
  Handler handler;
  RouteOptions options;
};

struct RouteMatch {
  const Route* route = nullptr;
  PathParams params;
  std::vector<std::string> allowed;  // methods of the path when `route` is null but it exists
};

class Router {
 public:
  void add(std::string method, const std::string& pattern, Handler handler,
           RouteOptions options = {});
  RouteMatch match(const std::string& method, const std::string& path) const;
  const std::vector<Route>& routes() const { return routes_; }

 private:
  std::vector<Route> routes_;
};

std::vector<std::string> splitPath(const std::string& path);

}  // namespace certsteward::adapters::rest
