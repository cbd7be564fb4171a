// /api/v1/users (org-scoped).
#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/rest/json_io.hpp>
#include <certsteward/adapters/rest/users_json.hpp>

namespace certsteward::adapters::rest {

void Api::addUserRoutes() {
  router_.add("GET", "/api/v1/users", [this](const Call& c) {
    auto page = s_.users.list(c.who(), pageFrom(c.request));
    if (!page) return errorResponse(page.error());
    return pageResponse("users", *page, [](const domain::User& u) { return toJson(u); });
  });

  router_.add("POST", "/api/v1/users", [this](const Call& c) {
    const auto body = parseBody(c.request);
    const std::string username = requiredString(body, "username", 200);
    const std::string password = requiredString(body, "password", 1000);
    auto role = optionalEnum<domain::OrgRole>(body, "org_role", domain::parseOrgRole)
                    .value_or(domain::OrgRole::viewer);
    auto user = s_.users.create(c.who(), c.context, username, password, role);
    if (!user) return errorResponse(user.error());
    return jsonResponse(201, json::object{{"user", toJson(*user)}});
  });

  router_.add("GET", "/api/v1/users/:user_id", [this](const Call& c) {
    auto user = s_.users.get(c.who(), c.param("user_id"));
    if (!user) return errorResponse(user.error());
    return jsonResponse(200, json::object{{"user", toJson(*user)}});
  });

  router_.add("PATCH", "/api/v1/users/:user_id", [this](const Call& c) {
    const auto body = parseBody(c.request);
    services::UserChanges changes{
        optionalString(body, "password", 1000), optionalBool(body, "disabled"),
        optionalEnum<domain::OrgRole>(body, "org_role", domain::parseOrgRole)};
    auto user = s_.users.update(c.who(), c.context, c.param("user_id"), changes);
    if (!user) return errorResponse(user.error());
    return jsonResponse(200, json::object{{"user", toJson(*user)}});
  });

  router_.add("DELETE", "/api/v1/users/:user_id", [this](const Call& c) {
    if (auto s = s_.users.remove(c.who(), c.context, c.param("user_id")); !s) {
      return errorResponse(s.error());
    }
    HttpResponse r;
    r.status = 204;
    return r;
  });
}

}  // namespace certsteward::adapters::rest
