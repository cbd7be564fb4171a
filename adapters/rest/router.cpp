// Path matching.
#include <certsteward/adapters/rest/router.hpp>

#include <algorithm>

namespace certsteward::adapters::rest {

std::vector<std::string> splitPath(const std::string& path) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < path.size()) {
    const std::size_t slash = std::min(path.find('/', start), path.size());
    if (slash > start) out.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

void Router::add(std::string method, const std::string& pattern, Handler handler,
                 RouteOptions options) {
  routes_.push_back(
      Route{std::move(method), pattern, splitPath(pattern), std::move(handler), options});
}

RouteMatch Router::match(const std::string& method, const std::string& path) const {
  RouteMatch result;
  const auto segments = splitPath(path);
  for (const auto& route : routes_) {
    if (route.segments.size() != segments.size()) continue;
    PathParams params;
    bool ok = true;
    for (std::size_t i = 0; i < segments.size() && ok; ++i) {
      const auto& want = route.segments[i];
      if (!want.empty() && want.front() == ':') {
        params[want.substr(1)] = segments[i];
      } else {
        ok = want == segments[i];
      }
    }
    if (!ok) continue;
    if (route.method == method || (method == "HEAD" && route.method == "GET")) {
      result.route = &route;
      result.params = std::move(params);
      return result;
    }
    result.allowed.push_back(route.method);
  }
  return result;
}

}  // namespace certsteward::adapters::rest
