// GET /catalog: what this server offers, described for the UI's forms and hints.
#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/rest/json_io.hpp>

namespace certsteward::adapters::rest {

void Api::addCatalogRoutes() {
  router_.add("GET", "/api/v1/catalog", [this](const Call& c) {
    auto catalog = s_.catalog.describe(c.who());
    if (!catalog) return errorResponse(catalog.error());
    json::array kinds;
    for (const auto& k : catalog->event_kinds) {
      kinds.push_back(json::object{
          {"name", std::string(nameOf(k.kind))}, {"summary", k.summary}, {"failure", k.failure}});
    }
    return jsonResponse(200, json::object{{"event_kinds", std::move(kinds)}});
  });
}

}  // namespace certsteward::adapters::rest
