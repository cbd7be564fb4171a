// Tenant isolation on every project-scoped endpoint, taken from docs/api.md so that a newly
// documented endpoint is swept too: (1) a caller who is not a member of the project gets 404
// on every route; (2) an org owner, who sees both projects, gets 404 for a resource of project B
// addressed under project A — and nothing of B changes.
#include <fstream>
#include <set>

#include "e2e/api_support.hpp"

using namespace certsteward::testing::api;

namespace {

struct Route {
  std::string method;
  std::string path;  // with placeholders: <project_id>, <p>, <cert_id>, <c>, <job_id>, <d>, ...
};

// The backticked pieces of `text`.
std::vector<std::string> ticked(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (true) {
    const auto open = text.find('`', at);
    if (open == std::string::npos) break;
    const auto close = text.find('`', open + 1);
    if (close == std::string::npos) break;
    out.push_back(text.substr(open + 1, close - open - 1));
    at = close + 1;
  }
  return out;
}

// The cells of a Markdown table row ("| a | b |" -> {"a", "b"}), trimmed.
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  if (!line.starts_with("|")) return out;
  std::size_t at = 1;
  while (at < line.size()) {
    const auto bar = line.find('|', at);
    if (bar == std::string::npos) break;
    std::string cell = line.substr(at, bar - at);
    cell.erase(0, cell.find_first_not_of(' '));
    cell.erase(cell.find_last_not_of(' ') + 1);
    out.push_back(cell);
    at = bar + 1;
  }
  return out;
}

std::vector<Route> documentedProjectRoutes() {
  std::ifstream in(std::string(CERTSTEWARD_SOURCE_DIR) + "/docs/api.md");
  REQUIRE(in.good());
  const std::set<std::string> methods{"GET", "POST", "PUT", "PATCH", "DELETE"};
  std::vector<Route> routes;
  std::string line;
  while (std::getline(in, line)) {
    const auto row = cells(line);
    if (row.size() >= 2 && methods.count(row[0]) == 1) {
      std::string base;
      for (const auto& path : ticked(row[1])) {
        if (path.starts_with("/projects/<")) {
          base = path;
          routes.push_back({row[0], path});
        } else if (!base.empty() && path.starts_with("/")) {  // "`/execute`": a sibling action
          routes.push_back({row[0], base.substr(0, base.rfind('/')) + path});
        }
      }
    } else if (row.size() >= 2 && row[1].find("` / `") != std::string::npos &&
               ticked(row[0]).size() == 1) {  // a configuration resource: five routes
      const std::string collection = "/projects/<p>/" + ticked(row[0])[0];
      routes.push_back({"GET", collection});
      routes.push_back({"POST", collection});
      routes.push_back({"GET", collection + "/<id>"});
      routes.push_back({"PATCH", collection + "/<id>"});
      routes.push_back({"DELETE", collection + "/<id>"});
    }
  }
  return routes;
}

// Ids of project B's things, by the placeholder or the collection before "<id>".
using Ids = std::map<std::string, std::string>;

std::string fill(const std::string& path, const std::string& project, const Ids& ids) {
  std::string out;
  std::string previous;
  std::size_t at = 0;
  while (at < path.size()) {
    const auto open = path.find('<', at);
    if (open == std::string::npos) {
      out += path.substr(at);
      break;
    }
    out += path.substr(at, open - at);
    const auto close = path.find('>', open);
    const std::string name = path.substr(open + 1, close - open - 1);
    const auto slash = out.find_last_of('/', out.size() - 2);
    const std::string segment = out.substr(slash + 1, out.size() - slash - 2);
    if (name == "project_id" || name == "p") {
      out += project;
    } else {
      const std::string key = name == "id" ? segment : name;
      REQUIRE_MESSAGE(ids.count(key) == 1, "no id for <" << name << "> in " << path);
      out += ids.at(key);
    }
    at = close + 1;
  }
  return "/api/v1" + out;
}

// A body the route would accept, so that a 404 cannot hide behind a 400.
std::string bodyFor(const Route& r, const Ids& ids) {
  const auto& p = r.path;
  if (r.method == "PATCH") return "{}";
  if (r.method == "PUT") return R"({"role":"viewer"})";
  if (r.method != "POST") return "";
  if (p.ends_with("/certificates")) return R"({"common_name":"tenancy.example.test"})";
  if (p.ends_with("/download")) return R"({"format":"pem"})";
  if (p.ends_with("/distributions")) {
    return json::serialize(json::object{{"module_config_id", ids.at("modules")}});
  }
  if (p.ends_with("/acme-accounts")) {
    return R"({"name":"t","directory_url":"https://127.0.0.1:14000/dir"})";
  }
  if (p.ends_with("/dns-credentials"))
    return R"({"name":"t","provider":"rfc2136","settings":{"server":"127.0.0.1","key_name":"k"},"secret":"c2VjcmV0"})";
  if (p.ends_with("/zones")) {
    return json::serialize(json::object{{"domain", "t.example.test"},
                                        {"dns_credential_id", ids.at("dns-credentials")}});
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
  return "";
}

ServerProcess& tenancyServer() {
  static ServerProcess instance(
      std::map<std::string, std::string>{{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", kOwner},
                                         {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", kOwnerPassword}});
  return instance;
}

std::string created(HttpClient& http, const Session& s, const std::string& path,
                    const std::string& body, const char* singular) {
  auto r = http.request("POST", path, body, {bearer(s)});
  REQUIRE_MESSAGE(r.status == 201, path << " " << r.body);
  return str(parse(r).at(singular).as_object(), "id");
}

}  // namespace

TEST_CASE("api tenancy: every project-scoped endpoint hides other projects' things (404)") {
  const auto routes = documentedProjectRoutes();
  REQUIRE(routes.size() > 50);  // the document was read, not skipped
  auto& server = tenancyServer();
  HttpClient http(server.baseUrl());
  const auto owner = login(http, kOwner, kOwnerPassword);
  const auto projectA = createProject(http, owner);
  const auto projectB = createProject(http, owner);
  const std::string b = "/api/v1/projects/" + projectB;

  // One of everything in project B.
  Ids ids;
  ids["cert_id"] = ids["c"] = plantCertificate(server, projectB, "b.example.test", nullptr);
  ids["job_id"] = plantJob(server, projectB, ids["cert_id"]);
  ids["acme-accounts"] =
      created(http, owner, b + "/acme-accounts",
              R"({"name":"b","directory_url":"https://127.0.0.1:14000/dir"})", "acme_account");
  ids["dns-credentials"] = created(
      http, owner, b + "/dns-credentials",
      R"({"name":"b","provider":"rfc2136","settings":{"server":"127.0.0.1","key_name":"k"},"secret":"c2VjcmV0"})",
      "dns_credential");
  ids["zones"] =
      created(http, owner, b + "/zones",
              json::serialize(json::object{{"domain", "b.example.test"},
                                           {"dns_credential_id", ids["dns-credentials"]}}),
              "zone");
  ids["credentials"] = created(http, owner, b + "/credentials",
                               R"({"name":"b","kind":"token","secret":"s"})", "credential");
  ids["notification-channels"] =
      created(http, owner, b + "/notification-channels",
              R"({"name":"b","kind":"webhook","settings":{"url":"http://127.0.0.1:9/"}})",
              "notification_channel");
  ids["notification-rules"] =
      created(http, owner, b + "/notification-rules", R"({"name":"b","events":["job.failed"]})",
              "notification_rule");
  ids["modules"] =
      created(http, owner, b + "/modules", R"({"name":"b","module":"file"})", "module");
  ids["d"] =
      created(http, owner, b + "/certificates/" + ids["cert_id"] + "/distributions",
              json::serialize(json::object{{"module_config_id", ids["modules"]}}), "distribution");
  const auto member = userWithRole(http, owner, "viewer");
  REQUIRE(
      http.request("PUT", b + "/members/" + member.userId, R"({"role":"viewer"})", {bearer(owner)})
          .status == 200);
  ids["user_id"] = member.userId;

  // (1) An operator who belongs to neither project: 404 everywhere, whatever the method.
  const auto outsider = userWithRole(http, owner, "operator");
  std::set<std::string> swept;
  for (const auto& route : routes) {
    const auto path = fill(route.path, projectB, ids);
    auto r = http.request(route.method, path, bodyFor(route, ids), {bearer(outsider)});
    CHECK_MESSAGE(r.status == 404,
                  route.method << " " << route.path << " -> " << r.status << " " << r.body);
    swept.insert(route.method + " " + route.path);
  }
  CHECK(swept.count("POST /projects/<p>/certificates/<c>/distributions/<d>/rollback") == 1);
  CHECK(swept.count("PATCH /projects/<p>/zones/<id>") == 1);

  // (2) The owner sees both projects; B's things addressed under A are 404 and stay untouched.
  int crossChecked = 0;
  for (const auto& route : routes) {
    const bool hasThing = route.path.find('<', route.path.find('>') + 1) != std::string::npos;
    if (!hasThing || route.path.find("/members/") != std::string::npos) continue;
    const auto path = fill(route.path, projectA, ids);
    auto r = http.request(route.method, path, bodyFor(route, ids), {bearer(owner)});
    CHECK_MESSAGE(r.status == 404,
                  route.method << " " << path << " -> " << r.status << " " << r.body);
    ++crossChecked;
  }
  CHECK(crossChecked > 25);
  for (const auto& [segment, id] :
       std::map<std::string, std::string>{{"certificates", ids["cert_id"]},
                                          {"jobs", ids["job_id"]},
                                          {"acme-accounts", ids["acme-accounts"]},
                                          {"dns-credentials", ids["dns-credentials"]},
                                          {"zones", ids["zones"]},
                                          {"credentials", ids["credentials"]},
                                          {"notification-channels", ids["notification-channels"]},
                                          {"notification-rules", ids["notification-rules"]},
                                          {"modules", ids["modules"]}}) {
    CHECK_MESSAGE(
        http.request("GET", b + "/" + segment + "/" + id, "", {bearer(owner)}).status == 200,
        segment << " of B was changed");
  }
  auto distributions = http.request("GET", b + "/certificates/" + ids["cert_id"] + "/distributions",
                                    "", {bearer(owner)});
  REQUIRE(distributions.status == 200);
  CHECK(json::parse(distributions.body).as_array().size() == 1);
}
