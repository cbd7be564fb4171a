// Project existence on every project-scoped route, with the route list taken from the router
// itself (`certsteward routes`), so a new route cannot skip it: a project id that was never
// created, or a project that was deleted, answers 404 to everyone — org owners and admins, and a
// former project admin — and nothing is written. Deleting a project that still holds anything
// is refused with the things it holds.
#include <cstdio>
#include <set>

#include "e2e/api_support.hpp"

using namespace certsteward::testing::api;

namespace {

struct RouterRoute {
  std::string method;
  std::string pattern;  // "/api/v1/projects/:project_id/zones/:id"
};

std::vector<RouterRoute> projectRoutesOfRouter() {
  std::vector<RouterRoute> routes;
  FILE* pipe = ::popen(CERTSTEWARD_BINARY " routes", "r");
  REQUIRE(pipe != nullptr);
  char line[1024];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    std::string text(line);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r'))
      text.pop_back();
    const auto space = text.find(' ');
    if (space == std::string::npos) continue;
    RouterRoute r{text.substr(0, space), text.substr(space + 1)};
    if (r.pattern.find(":project_id") != std::string::npos) routes.push_back(r);
  }
  REQUIRE(::pclose(pipe) == 0);
  return routes;
}

constexpr const char* kAbsentId = "0123456789abcdef01234567";  // 24 hex, never created

// The pattern with :project_id set and every other parameter set to an id that does not exist.
std::string concrete(const std::string& pattern, const std::string& project) {
  std::string out;
  std::size_t at = 0;
  while (at < pattern.size()) {
    const auto colon = pattern.find(':', at);
    if (colon == std::string::npos) {
      out += pattern.substr(at);
      break;
    }
    out += pattern.substr(at, colon - at);
    auto end = pattern.find('/', colon);
    if (end == std::string::npos) end = pattern.size();
    out += pattern.substr(colon + 1, end - colon - 1) == "project_id" ? project : kAbsentId;
    at = end;
  }
  return out;
}

// A body each route accepts, so a 404 cannot hide behind a 400 or 422.
std::string acceptableBody(const RouterRoute& r) {
  const auto& p = r.pattern;
  if (r.method == "PATCH") return "{}";
  if (r.method == "PUT") return R"({"role":"viewer"})";
  if (r.method != "POST") return "";
  if (p.ends_with("/certificates")) return R"({"common_name":"exists.example.test"})";
  if (p.ends_with("/download")) return R"({"format":"pem"})";
  if (p.ends_with("/distributions")) {
    return json::serialize(json::object{{"module_config_id", kAbsentId}});
  }
  if (p.ends_with("/acme-accounts")) {
    return R"({"name":"t","directory_url":"https://127.0.0.1:14000/dir"})";
  }
  if (p.ends_with("/dns-credentials"))
    return R"({"name":"t","provider":"rfc2136","settings":{"server":"127.0.0.1","key_name":"k"},"secret":"c2VjcmV0"})";
  if (p.ends_with("/zones")) {
    return json::serialize(
        json::object{{"domain", "t.example.test"}, {"dns_credential_id", kAbsentId}});
  }
  if (p.ends_with("/credentials")) return R"({"name":"t","kind":"token","secret":"x"})";
  if (p.ends_with("/notification-channels")) {
    return R"({"name":"t","kind":"webhook","settings":{"url":"http://127.0.0.1:9/"}})";
  }
  if (p.ends_with("/notification-rules")) return R"({"name":"t","events":["job.failed"]})";
  if (p.ends_with("/modules")) return R"({"name":"t","module":"file"})";
  if (p.ends_with("/ssh-host-keys")) return R"({"host":"127.0.0.1","port":1})";
  if (p.ends_with("/acme-dns-registrations")) {
    return R"({"name":"t","settings":{"api_url":"https://127.0.0.1:9"}})";
  }
  return "{}";
}

ServerProcess& existenceServer() {
  static ServerProcess instance(
      std::map<std::string, std::string>{{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", kOwner},
                                         {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", kOwnerPassword}});
  return instance;
}

std::int64_t auditTotal(HttpClient& http, const Session& owner) {
  auto r = http.request("GET", "/api/v1/audit-logs?page_size=1", "", {bearer(owner)});
  REQUIRE(r.status == 200);
  return parse(r).at("total").as_int64();
}

// Every project-scoped route of the router, as `who`, under `project`: 404, always.
void sweep(HttpClient& http, const Session& who, const std::string& project, const char* label) {
  const auto routes = projectRoutesOfRouter();
  REQUIRE(routes.size() > 50);
  for (const auto& route : routes) {
    auto r = http.request(route.method, concrete(route.pattern, project), acceptableBody(route),
                          {bearer(who)});
    CHECK_MESSAGE(r.status == 404, label << ": " << route.method << " " << route.pattern << " -> "
                                         << r.status << " " << r.body);
  }
}

}  // namespace

TEST_CASE("projects: a project id that was never created is 404 on every route, for every role") {
  auto& server = existenceServer();
  HttpClient http(server.baseUrl());
  const auto owner = login(http, kOwner, kOwnerPassword);
  const auto admin = userWithRole(http, owner, "admin");
  const auto before = auditTotal(http, owner);
  sweep(http, owner, kAbsentId, "owner");
  sweep(http, admin, kAbsentId, "admin");
  // Nothing was written: no audit entry, and no certificate or job anywhere to be found.
  CHECK(auditTotal(http, owner) == before);
  auto projects = http.request("GET", "/api/v1/projects", "", {bearer(owner)});
  REQUIRE(projects.status == 200);
  const auto listed = parse(projects);
  for (const auto& p : listed.at("projects").as_array()) {
    CHECK(p.as_object().at("id").as_string() != kAbsentId);
  }
}

TEST_CASE("projects: a deleted project leaves nothing reachable, also for its former admin") {
  auto& server = existenceServer();
  HttpClient http(server.baseUrl());
  const auto owner = login(http, kOwner, kOwnerPassword);
  const auto project = createProject(http, owner);
  const std::string base = "/api/v1/projects/" + project;
  const auto former = userWithRole(http, owner, "operator");
  REQUIRE(http.request("PUT", base + "/members/" + former.userId, R"({"role":"admin"})",
                       {bearer(owner)})
              .status == 200);

  // While it holds something, the delete is refused and names what is left.
  auto credential = http.request("POST", base + "/credentials",
                                 R"({"name":"c","kind":"token","secret":"s"})", {bearer(former)});
  REQUIRE_MESSAGE(credential.status == 201, credential.body);
  const auto credentialId = str(parse(credential).at("credential").as_object(), "id");
  auto refused = http.request("DELETE", base, "", {bearer(owner)});
  REQUIRE(refused.status == 409);
  const auto body = parse(refused);
  CHECK(str(body, "code") == "DEPENDENCY_CONFLICT");
  REQUIRE(body.at("references").as_array().size() == 1);
  CHECK(body.at("references").as_array()[0].as_string() == "credential " + credentialId);

  REQUIRE(
      http.request("DELETE", base + "/credentials/" + credentialId, "", {bearer(former)}).status ==
      204);
  REQUIRE(http.request("DELETE", base, "", {bearer(owner)}).status == 204);

  sweep(http, former, project, "former project admin");
  sweep(http, owner, project, "owner");
  auto me = http.request("GET", "/api/v1/auth/me", "", {bearer(former)});
  REQUIRE(me.status == 200);
  CHECK(parse(me).at("memberships").as_array().empty());
}
