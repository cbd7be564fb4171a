// /api/v1/projects and their members.
#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/rest/json_io.hpp>

namespace certsteward::adapters::rest {
namespace {

json::object toJson(const domain::Project& p) {
  return {{"id", p.id},
          {"name", p.name},
          {"description", p.description},
          {"created_at", timestamp(p.created_at)},
          {"updated_at", timestamp(p.updated_at)}};
}

json::object toJson(const domain::Membership& m) {
  return {{"project_id", m.project_id},
          {"user_id", m.user_id},
          {"role", std::string(nameOf(m.role))},
          {"created_at", timestamp(m.created_at)}};
}

}  // namespace

void Api::addProjectRoutes() {
  router_.add("GET", "/api/v1/projects", [this](const Call& c) {
    auto page = s_.projects.list(c.who(), pageFrom(c.request));
    if (!page) return errorResponse(page.error());
    return pageResponse("projects", *page, [](const domain::Project& p) { return toJson(p); });
  });

  router_.add("POST", "/api/v1/projects", [this](const Call& c) {
    const auto body = parseBody(c.request);
    auto project = s_.projects.create(c.who(), c.context, requiredString(body, "name", 1000),
                                      optionalString(body, "description", 5000).value_or(""));
    if (!project) return errorResponse(project.error());
    return jsonResponse(201, json::object{{"project", toJson(*project)}});
  });

  router_.add("GET", "/api/v1/projects/:project_id", [this](const Call& c) {
    auto project = s_.projects.get(c.who(), c.param("project_id"));
    if (!project) return errorResponse(project.error());
    return jsonResponse(200, json::object{{"project", toJson(*project)}});
  });

  router_.add("PATCH", "/api/v1/projects/:project_id", [this](const Call& c) {
    const auto body = parseBody(c.request);
    services::ProjectChanges changes{optionalString(body, "name", 1000),
                                     optionalString(body, "description", 5000)};
    auto project = s_.projects.update(c.who(), c.context, c.param("project_id"), changes);
    if (!project) return errorResponse(project.error());
    return jsonResponse(200, json::object{{"project", toJson(*project)}});
  });

  router_.add("DELETE", "/api/v1/projects/:project_id", [this](const Call& c) {
    if (auto s = s_.projects.remove(c.who(), c.context, c.param("project_id")); !s) {
      return errorResponse(s.error());
    }
    HttpResponse r;
    r.status = 204;
    return r;
  });

  router_.add("GET", "/api/v1/projects/:project_id/members", [this](const Call& c) {
    auto page = s_.projects.members(c.who(), c.param("project_id"), pageFrom(c.request));
    if (!page) return errorResponse(page.error());
    return pageResponse("members", *page, [](const domain::Membership& m) { return toJson(m); });
  });

  router_.add("PUT", "/api/v1/projects/:project_id/members/:user_id", [this](const Call& c) {
    const auto body = parseBody(c.request);
    auto role = optionalEnum<domain::ProjectRole>(body, "role", domain::parseProjectRole);
    if (!role) throw BadRequest("role is required (admin, operator or viewer)");
    auto member =
        s_.projects.putMember(c.who(), c.context, c.param("project_id"), c.param("user_id"), *role);
    if (!member) return errorResponse(member.error());
    return jsonResponse(200, json::object{{"member", toJson(*member)}});
  });

  router_.add("DELETE", "/api/v1/projects/:project_id/members/:user_id", [this](const Call& c) {
    if (auto s =
            s_.projects.removeMember(c.who(), c.context, c.param("project_id"), c.param("user_id"));
        !s) {
      return errorResponse(s.error());
    }
    HttpResponse r;
    r.status = 204;
    return r;
  });
}

}  // namespace certsteward::adapters::rest
