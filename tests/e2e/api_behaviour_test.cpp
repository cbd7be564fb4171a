// End to end over real HTTP: request conventions, idempotency, audit, metrics, hostile input,
// licences, graceful stop.
#include <optional>

#include "e2e/api_support.hpp"

using namespace certsteward::testing::api;

TEST_CASE("api: request conventions") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  CHECK(http.request("POST", "/api/v1/projects", "name=x",
                     {bearer(owner), "Content-Type: text/plain"})
            .status == 415);
  auto malformed = http.request("POST", "/api/v1/projects", "{\"name\":", {bearer(owner)});
  CHECK(malformed.status == 400);
  CHECK(parse(malformed).size() == 1);
  CHECK(http.request("POST", "/api/v1/projects", "[1,2]", {bearer(owner)}).status == 400);
  CHECK(http.request("POST", "/api/v1/projects", R"({"name":42})", {bearer(owner)}).status == 400);
  CHECK(http.request("POST", "/api/v1/projects", R"({"name":""})", {bearer(owner)}).status == 422);
  CHECK(http.request("GET", "/api/v1/nothing-here", "", {bearer(owner)}).status == 404);
  auto wrongMethod = http.request("PUT", "/api/v1/projects", "{}", {bearer(owner)});
  CHECK(wrongMethod.status == 405);
  CHECK(wrongMethod.header("allow").find("GET") != std::string::npos);
  auto echoed =
      http.request("GET", "/api/v1/projects", "", {bearer(owner), "X-Request-ID: trace-abc-1"});
  CHECK(echoed.header("x-request-id") == "trace-abc-1");
  CHECK(
      http.request("GET", "/api/v1/projects", "", {bearer(owner)}).header("x-request-id").size() ==
      24);
  auto clamped = parse(http.request("GET", "/api/v1/projects?page_size=500", "", {bearer(owner)}));
  CHECK(clamped.at("page_size").as_int64() == 100);
  auto defaults = parse(http.request("GET", "/api/v1/projects", "", {bearer(owner)}));
  CHECK(defaults.at("page").as_int64() == 1);
  CHECK(defaults.at("page_size").as_int64() == 20);
  CHECK(http.request("GET", "/api/v1/projects?page=0", "", {bearer(owner)}).status == 400);
  CHECK(http.request("GET", "/api/v1/projects?page_size=abc", "", {bearer(owner)}).status == 400);
  auto head = http.request("HEAD", "/api/v1/projects", "", {bearer(owner)});
  CHECK(head.status == 200);
  CHECK(head.body.empty());
  CHECK(http.request("GET", "/api/v1/projects", "", {bearer(owner)})
            .header("access-control-allow-origin")
            .empty());
}

TEST_CASE("api: an Idempotency-Key replays the first response and another body is 409") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string key = "Idempotency-Key: create-" + std::to_string(unique());
  const std::string body = R"({"name":"idempotent )" + std::to_string(unique()) + R"("})";
  auto first = http.request("POST", "/api/v1/projects", body, {bearer(owner), key});
  REQUIRE(first.status == 201);
  auto second = http.request("POST", "/api/v1/projects", body, {bearer(owner), key});
  CHECK(second.status == 201);
  CHECK(second.body == first.body);
  CHECK(second.header("idempotent-replayed") == "true");
  auto different =
      http.request("POST", "/api/v1/projects", R"({"name":"other"})", {bearer(owner), key});
  CHECK(different.status == 409);
  auto total = parse(http.request("GET", "/api/v1/projects?page_size=100", "", {bearer(owner)}));
  int copies = 0;
  for (const auto& p : total.at("projects").as_array()) {
    if (json::serialize(p).find(body.substr(9, body.size() - 11)) != std::string::npos) ++copies;
  }
  CHECK(copies == 1);
}

TEST_CASE("api: the audit log is filtered by a time range and names what still exists") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string id = createProject(http, owner);
  const auto project = parse(http.request("GET", "/api/v1/projects/" + id, "", {bearer(owner)}));
  const std::string name = str(project.at("project").as_object(), "name");
  // The entry of this project's creation, found by its id.
  const auto creation = [&](const std::string& query) {
    auto r = http.request("GET", "/api/v1/audit-logs?action=project.create&page_size=100" + query,
                          "", {bearer(owner)});
    REQUIRE_MESSAGE(r.status == 200, r.body);
    std::optional<json::object> found;
    const auto body = parse(r);
    for (const auto& e : body.at("logs").as_array()) {
      if (e.as_object().at("resource_id") == id.c_str()) found = e.as_object();
    }
    return found;
  };
  const auto created = creation("");
  REQUIRE(created);
  CHECK(created->at("resource_name") == name.c_str());
  const std::string at = str(*created, "timestamp");

  // since is inclusive, until exclusive.
  CHECK(creation("&since=" + at));
  CHECK(creation("&since=" + at + "&until=2999-01-01T00:00:00Z"));
  CHECK_FALSE(creation("&until=" + at));
  CHECK_FALSE(creation("&since=2999-01-01T00:00:00Z"));
  CHECK(http.request("GET", "/api/v1/audit-logs?since=yesterday", "", {bearer(owner)}).status ==
        400);
  CHECK(http.request("GET", "/api/v1/audit-logs?until=2026-13-01T00:00:00Z", "", {bearer(owner)})
            .status == 400);

  // Gone: the entry stays, without a name to link.
  REQUIRE(http.request("DELETE", "/api/v1/projects/" + id, "", {bearer(owner)}).status == 204);
  const auto after = creation("");
  REQUIRE(after);
  CHECK(after->at("resource_name").is_null());
}

TEST_CASE("api: every mutation is audited under the acting user and the chain verifies") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string id = createProject(http, owner);
  auto logs = parse(http.request("GET", "/api/v1/audit-logs?action=project.create&page_size=100",
                                 "", {bearer(owner)}));
  bool found = false;
  for (const auto& e : logs.at("logs").as_array()) {
    const auto& o = e.as_object();
    if (o.at("resource_id") == id.c_str()) {
      found = true;
      CHECK(o.at("actor_username") == "root");
      CHECK(o.at("resourceType") == "project");
      CHECK(json::value_to<std::string>(o.at("checksum")).size() == 64);
      auto one =
          http.request("GET", "/api/v1/audit-logs/" + json::value_to<std::string>(o.at("id")), "",
                       {bearer(owner)});
      CHECK(one.status == 200);
    }
  }
  CHECK(found);
  const auto viewer = userWithRole(http, owner, "admin");
  CHECK(http.request("POST", "/api/v1/audit-logs/verify", "", {bearer(viewer)}).status == 403);
  auto verify = http.request("POST", "/api/v1/audit-logs/verify?limit=1000", "", {bearer(owner)});
  REQUIRE_MESSAGE(verify.status == 200, verify.body);
  auto v = parse(verify);
  CHECK(v.at("intact").as_bool());
  CHECK(v.at("verified").as_int64() > 0);
  CHECK(v.at("breaks").as_array().empty());
  CHECK(http.request("POST", "/api/v1/audit-logs/verify", "", {bearer(owner)}).status == 429);
  auto license = parse(http.request("GET", "/api/v1/license/status", "", {bearer(viewer)}));
  CHECK(str(license, "plan") == "free");
  CHECK(license.at("cert_limit").as_int64() == 1);
}

TEST_CASE("api: hostile input never crashes the server nor leaks internals") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::vector<std::pair<std::string, std::string>> requests{
      {"/api/v1/projects", std::string(4000, '[')},
      {"/api/v1/projects", "{\"name\":\"" + std::string(5000, 'a') + "\"}"},
      {"/api/v1/projects", R"({"name":"\u0000evil"})"},
      {"/api/v1/projects", R"({"name":"😀 ünïcødé ✓"})"},
      {"/api/v1/projects", "{\"name\": 1e400}"},
      {"/api/v1/projects", "\xff\xfe\xfd"},
      {"/api/v1/users", R"({"username":"'; DROP TABLE users;--","password":"long-enough-1"})"},
      {"/api/v1/projects/../users", "{}"},
      {"/api/v1/projects/%2e%2e%2fusers", "{}"},
      {"/api/v1/projects/" + std::string(3000, 'x'), "{}"},
  };
  for (const auto& [path, body] : requests) {
    CAPTURE(path.substr(0, 60));
    auto r = http.request("POST", path, body, {bearer(owner)});
    CHECK(r.status < 500);
    CHECK(r.status != 0);
    CHECK(r.body.find("sqlite") == std::string::npos);
    CHECK(r.body.find("what():") == std::string::npos);
    CHECK(r.body.find("exception") == std::string::npos);
  }
  // Over the 1 MiB limit: a JSON 413, also far beyond it (curl sends these with Expect:
  // 100-continue; the server refuses at the head, before the body is sent).
  auto big = http.request("POST", "/api/v1/projects",
                          "{\"name\":\"" + std::string(1536 * 1024, 'a') + "\"}", {bearer(owner)});
  CHECK(big.status == 413);
  CHECK(parse(big).at("error").as_string().find("max_request_bytes") != std::string::npos);
  auto huge =
      http.request("POST", "/api/v1/projects",
                   "{\"name\":\"" + std::string(3 * 1024 * 1024, 'a') + "\"}", {bearer(owner)});
  CHECK(huge.status == 413);
  CHECK(parse(huge).at("error").as_string().find("max_request_bytes") != std::string::npos);
  HttpClient again(server().baseUrl());
  CHECK(again.request("GET", "/healthz").status == 200);
  CHECK(server().running());
}

// The free plan allows one certificate in the whole organisation, so one case owns them all.

TEST_CASE("api: /metrics is served without authentication in the Prometheus text format") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  REQUIRE(http.request("GET", "/api/v1/projects", "", {bearer(owner)}).status == 200);
  REQUIRE(http.request("GET", "/api/v1/projects/0123456789abcdef01234567", "", {bearer(owner)})
              .status == 404);
  auto r = http.request("GET", "/metrics");
  REQUIRE(r.status == 200);
  CHECK(r.header("content-type").starts_with("text/plain"));
  CHECK(r.body.find("# TYPE certsteward_http_requests_total counter") != std::string::npos);
  CHECK(
      r.body.find(
          R"(certsteward_http_requests_total{method="GET",route="/api/v1/projects",status="200"})") !=
      std::string::npos);
  CHECK(r.body.find(R"(route="/api/v1/projects/:project_id",status="404")") != std::string::npos);
  CHECK(
      r.body.find(
          R"(certsteward_http_request_duration_seconds_bucket{route="/api/v1/projects",le="+Inf"})") !=
      std::string::npos);
  CHECK(r.body.find(R"(certsteward_license_certificate_limit{plan="free"} 1)") !=
        std::string::npos);
  CHECK(r.body.find("certsteward_license_certificates_used") != std::string::npos);
  CHECK(r.body.find(owner.access) == std::string::npos);
  CHECK(http.request("POST", "/metrics", "{}").status == 405);
}

TEST_CASE("api: SIGTERM lets a running request finish before the server stops") {
  // bcrypt at cost 14 makes a login take about a second: long enough to stop in the middle.
  ServerProcess slow(
      std::map<std::string, std::string>{{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", kOwner},
                                         {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", kOwnerPassword}},
      "auth.bcrypt_cost = 14\n");
  long status = 0;
  std::thread client([&] {
    HttpClient http(slow.baseUrl());
    status = http.request("POST", "/api/v1/auth/login",
                          R"({"username":"root","password":"correct horse battery"})")
                 .status;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds{300});
  const int exitCode = slow.stop();
  client.join();
  CHECK(status == 200);
  CHECK(exitCode == 0);
}

TEST_CASE("api: an owner activates a signed licence, which lifts the certificate cap") {
  const auto [priv, pub] = ed25519KeyPairPem();
  const auto keyFile = std::filesystem::temp_directory_path() /
                       ("certsteward-license-" + std::to_string(::getpid()) + ".pem");
  std::ofstream(keyFile) << pub;
  ServerProcess licensed(
      std::map<std::string, std::string>{{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", kOwner},
                                         {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", kOwnerPassword}},
      "license.public_key_file = " + keyFile.string() + "\n");
  HttpClient http(licensed.baseUrl());
  const auto owner = login(http, kOwner, kOwnerPassword);
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const auto sign = [&](std::int64_t exp, int limit) {
    return signedLicense(priv, "lic-e2e", "Enterprise 3", limit, exp);
  };
  const std::string good = sign(now + 86400 * 365, 3);
  const auto admin = userWithRole(http, owner, "admin");
  CHECK(http.request("POST", "/api/v1/license/activate",
                     json::serialize(json::object{{"license_key", good}}), {bearer(admin)})
            .status == 403);
  std::string forged = good;
  forged[3] = forged[3] == 'A' ? 'B' : 'A';
  CHECK(http.request("POST", "/api/v1/license/activate",
                     json::serialize(json::object{{"license_key", forged}}), {bearer(owner)})
            .status == 422);
  CHECK(http.request("POST", "/api/v1/license/activate",
                     json::serialize(json::object{{"license_key", sign(now - 3600, 3)}}),
                     {bearer(owner)})
            .status == 422);  // expired more than 5 minutes ago
  auto activated =
      http.request("POST", "/api/v1/license/activate",
                   json::serialize(json::object{{"license_key", good}}), {bearer(owner)});
  REQUIRE_MESSAGE(activated.status == 200, activated.body);
  const auto view = parse(activated);
  CHECK(view.at("valid").as_bool());
  CHECK(str(view, "plan") == "enterprise");
  CHECK(str(view, "plan_name") == "Enterprise 3");
  CHECK(view.at("cert_limit").as_int64() == 3);
  CHECK(str(view, "license_mode") == "offline");
  CHECK(str(view, "license_key").size() < 16);  // masked
  CHECK(activated.body.find(good) == std::string::npos);
  const std::string project = createProject(http, owner);
  serveZone(http, owner, project);
  for (int i = 0; i < 3; ++i) {
    CHECK(http.request("POST", "/api/v1/projects/" + project + "/certificates",
                       json::serialize(
                           json::object{{"common_name", "h" + std::to_string(i) + ".example.com"}}),
                       {bearer(owner)})
              .status == 202);
  }
  CHECK(http.request("POST", "/api/v1/projects/" + project + "/certificates",
                     R"({"common_name":"h9.example.com"})", {bearer(owner)})
            .status == 409);
  std::filesystem::remove(keyFile);
}
