// End to end over real HTTP: the packaged binary on SQLite, driven with libcurl. One server
// serves the whole file; every case makes its own users and projects.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "adapters/crypto/ed25519_license_verifier.hpp"
#include "adapters/crypto/openssl_otp_hasher.hpp"
#include "domain/totp.hpp"
#include "e2e/http_client.hpp"
#include "e2e/server_process.hpp"
#include "support/ed25519_keys.hpp"

#include <fstream>

using namespace certsteward::testing;
namespace json = boost::json;

namespace {

constexpr const char* kOwner = "root";
constexpr const char* kOwnerPassword = "correct horse battery";

ServerProcess& server() {
  static ServerProcess instance(
      std::map<std::string, std::string>{{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", kOwner},
                                         {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", kOwnerPassword}});
  return instance;
}

json::object parse(const HttpResult& r) {
  boost::system::error_code ec;
  auto v = json::parse(r.body, ec);
  REQUIRE_MESSAGE(!ec, "not JSON: " << r.body);
  REQUIRE(v.is_object());
  return v.as_object();
}

std::string str(const json::object& o, const char* key) {
  REQUIRE(o.contains(key));
  return std::string(o.at(key).as_string());
}

int unique() {
  static int n = 0;
  return ++n;
}

struct Session {
  std::string access;
  std::string refresh;
  std::string csrf;
  std::string userId;
  std::vector<std::string> cookies;  // raw Set-Cookie lines
};

// Each login comes from its own address (X-Forwarded-For from the trusted loopback), so the
// per-IP login limit does not interfere with tests that are not about it.
std::string freshClientAddress() {
  const int n = unique();
  return "X-Forwarded-For: 10.77." + std::to_string(n / 250) + "." + std::to_string(n % 250 + 1);
}

Session login(HttpClient& http, const std::string& user, const std::string& password) {
  auto r = http.request("POST", "/api/v1/auth/login",
                        json::serialize(json::object{{"username", user}, {"password", password}}),
                        {freshClientAddress()});
  REQUIRE_MESSAGE(r.status == 200, r.body);
  auto body = parse(r);
  return Session{str(body, "access_token"), str(body, "refresh_token"), str(body, "csrf_token"),
                 std::string(body.at("user").as_object().at("id").as_string()),
                 r.all("set-cookie")};
}

// The owner logs in once per process (5 logins per username per minute).
const Session& ownerSession(HttpClient& http) {
  static const Session owner = login(http, kOwner, kOwnerPassword);
  return owner;
}

std::string bearer(const Session& s) {
  return "Authorization: Bearer " + s.access;
}

// Creates a user as the owner and logs in as them.
Session userWithRole(HttpClient& http, const Session& owner, const std::string& role) {
  const std::string name = "user" + std::to_string(unique()) + "-" + role;
  auto r =
      http.request("POST", "/api/v1/users",
                   json::serialize(json::object{
                       {"username", name}, {"password", "password-" + name}, {"org_role", role}}),
                   {bearer(owner)});
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return login(http, name, "password-" + name);
}

std::string createProject(HttpClient& http, const Session& s) {
  auto r = http.request(
      "POST", "/api/v1/projects",
      json::serialize(json::object{{"name", "project " + std::to_string(unique())}}), {bearer(s)});
  REQUIRE_MESSAGE(r.status == 201, r.body);
  return str(parse(r).at("project").as_object(), "id");
}

}  // namespace

TEST_CASE("api: login answers the token body and sets the three cookies") {
  HttpClient http(server().baseUrl());
  auto r = http.request("POST", "/api/v1/auth/login",
                        R"({"username":"root","password":"correct horse battery"})");
  REQUIRE(r.status == 200);
  auto body = parse(r);
  CHECK(str(body, "token_type") == "Bearer");
  CHECK(body.at("expires_in").as_int64() == 900);
  CHECK(str(body.at("user").as_object(), "username") == "root");
  CHECK(str(body.at("user").as_object(), "org_role") == "owner");
  CHECK_FALSE(str(body, "csrf_token").empty());
  CHECK(r.header("content-type").starts_with("application/json"));
  const auto cookies = r.all("set-cookie");
  REQUIRE(cookies.size() == 3);
  bool access = false, refresh = false, csrf = false;
  for (const auto& c : cookies) {
    CHECK(c.find("SameSite=Lax") != std::string::npos);
    if (c.starts_with("access_token=")) {
      access = c.find("Path=/;") != std::string::npos && c.find("HttpOnly") != std::string::npos &&
               c.find("Max-Age=604800") != std::string::npos;
    }
    if (c.starts_with("refresh_token=")) {
      refresh = c.find("Path=/api/v1/auth") != std::string::npos &&
                c.find("HttpOnly") != std::string::npos;
    }
    if (c.starts_with("csrf_token=")) csrf = c.find("HttpOnly") == std::string::npos;
  }
  CHECK(access);
  CHECK(refresh);
  CHECK(csrf);
  CHECK(r.body.find("password") == std::string::npos);
}

TEST_CASE("api: wrong credentials are one 401 whatever is wrong") {
  HttpClient http(server().baseUrl());
  auto wrong =
      http.request("POST", "/api/v1/auth/login", R"({"username":"root","password":"nope"})");
  auto unknown =
      http.request("POST", "/api/v1/auth/login", R"({"username":"ghost","password":"nope"})");
  CHECK(wrong.status == 401);
  CHECK(unknown.status == 401);
  CHECK(parse(wrong).at("message") == parse(unknown).at("message"));
  CHECK(http.request("POST", "/api/v1/auth/login", R"({"username":"root"})").status == 400);
  CHECK(http.request("POST", "/api/v1/auth/login", R"({"username":1,"password":"x"})").status ==
        400);
}

TEST_CASE("api: missing, malformed and misused tokens give the spec's 401 codes") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  auto missing = http.request("GET", "/api/v1/auth/me");
  CHECK(missing.status == 401);
  CHECK(str(parse(missing), "code") == "TOKEN_MISSING");
  auto garbage = http.request("GET", "/api/v1/auth/me", "", {"Authorization: Bearer abc.def.ghi"});
  CHECK(garbage.status == 401);
  CHECK(str(parse(garbage), "code") == "TOKEN_INVALID");
  auto refreshAsAccess =
      http.request("GET", "/api/v1/auth/me", "", {"Authorization: Bearer " + owner.refresh});
  CHECK(refreshAsAccess.status == 401);
  CHECK(str(parse(refreshAsAccess), "code") == "TOKEN_INVALID");
  auto twoSpaces =
      http.request("GET", "/api/v1/auth/me", "", {"Authorization: Bearer  " + owner.access});
  CHECK(twoSpaces.status == 401);
  auto me = http.request("GET", "/api/v1/auth/me", "", {bearer(owner)});
  REQUIRE(me.status == 200);
  CHECK(str(parse(me).at("user").as_object(), "username") == "root");
  CHECK(str(parse(me), "org_role") == "owner");
}

TEST_CASE("api: refresh tokens are single use and reuse revokes the family") {
  HttpClient http(server().baseUrl());
  const auto s = userWithRole(http, ownerSession(http), "admin");
  auto first = http.request("POST", "/api/v1/auth/refresh",
                            json::serialize(json::object{{"refresh_token", s.refresh}}));
  REQUIRE_MESSAGE(first.status == 200, first.body);
  const auto next = str(parse(first), "refresh_token");
  CHECK(next != s.refresh);
  CHECK(str(parse(first), "token_type") == "Bearer");
  auto reuse = http.request("POST", "/api/v1/auth/refresh",
                            json::serialize(json::object{{"refresh_token", s.refresh}}));
  CHECK(reuse.status == 401);
  CHECK(str(parse(reuse), "code") == "TOKEN_REUSE");
  auto successor = http.request("POST", "/api/v1/auth/refresh",
                                json::serialize(json::object{{"refresh_token", next}}));
  CHECK(successor.status == 401);  // the whole family went with the reuse
}

TEST_CASE("api: logout revokes the refresh token and clears the cookies") {
  HttpClient http(server().baseUrl());
  const auto s = userWithRole(http, ownerSession(http), "admin");
  auto out = http.request("POST", "/api/v1/auth/logout",
                          json::serialize(json::object{{"refresh_token", s.refresh}}), {bearer(s)});
  CHECK(out.status == 204);
  for (const auto& c : out.all("set-cookie"))
    CHECK(c.find("Max-Age=0") != std::string::npos);
  auto after = http.request("POST", "/api/v1/auth/refresh",
                            json::serialize(json::object{{"refresh_token", s.refresh}}));
  CHECK(after.status == 401);
}

TEST_CASE("api: cookie sessions need the CSRF header on mutations, Bearer does not") {
  HttpClient http(server().baseUrl());
  const auto s = userWithRole(http, ownerSession(http), "admin");
  const std::string cookie = "Cookie: access_token=" + s.access + "; csrf_token=" + s.csrf;
  CHECK(http.request("GET", "/api/v1/projects", "", {cookie}).status == 200);
  const std::string body = R"({"name":"csrf project )" + std::to_string(unique()) + R"("})";
  CHECK(http.request("POST", "/api/v1/projects", body, {cookie}).status == 403);
  CHECK(http.request("POST", "/api/v1/projects", body, {cookie, "X-CSRF-Token: wrong"}).status ==
        403);
  auto ok = http.request("POST", "/api/v1/projects", body, {cookie, "X-CSRF-Token: " + s.csrf});
  CHECK(ok.status == 201);
  CHECK(parse(http.request("POST", "/api/v1/projects", body, {cookie})).size() == 1);  // {"error"}
  auto viaBearer =
      http.request("POST", "/api/v1/projects",
                   R"({"name":"bearer project )" + std::to_string(unique()) + R"("})", {bearer(s)});
  CHECK(viaBearer.status == 201);
}

TEST_CASE("api: projects are created, read, renamed and deleted, and others' projects are 404") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string id = createProject(http, owner);
  auto got = http.request("GET", "/api/v1/projects/" + id, "", {bearer(owner)});
  REQUIRE(got.status == 200);
  CHECK(str(parse(got).at("project").as_object(), "id") == id);

  const auto viewer = userWithRole(http, owner, "viewer");
  CHECK(http.request("GET", "/api/v1/projects/" + id, "", {bearer(viewer)}).status == 404);
  auto list = parse(http.request("GET", "/api/v1/projects", "", {bearer(viewer)}));
  CHECK(list.at("total").as_int64() == 0);
  CHECK(
      http.request("PATCH", "/api/v1/projects/" + id, R"({"name":"x"})", {bearer(viewer)}).status ==
      404);

  auto add = http.request("PUT", "/api/v1/projects/" + id + "/members/" + viewer.userId,
                          R"({"role":"viewer"})", {bearer(owner)});
  REQUIRE_MESSAGE(add.status == 200, add.body);
  CHECK(http.request("GET", "/api/v1/projects/" + id, "", {bearer(viewer)}).status == 200);
  auto denied =
      http.request("PATCH", "/api/v1/projects/" + id, R"({"name":"renamed"})", {bearer(viewer)});
  CHECK(denied.status == 403);
  CHECK(parse(denied).size() == 1);  // 403 carries only "error"
  CHECK(parse(http.request("GET", "/api/v1/projects/" + id + "/members", "", {bearer(viewer)}))
            .at("total")
            .as_int64() == 1);

  auto renamed = http.request("PATCH", "/api/v1/projects/" + id,
                              R"({"name":"renamed )" + id + R"("})", {bearer(owner)});
  CHECK(renamed.status == 200);
  CHECK(http.request("PUT", "/api/v1/projects/" + id + "/members/" + viewer.userId,
                     R"({"role":"owner"})", {bearer(owner)})
            .status == 400);  // not a project role
  CHECK(http.request("DELETE", "/api/v1/projects/" + id, "", {bearer(viewer)}).status == 403);
  CHECK(http.request("DELETE", "/api/v1/projects/" + id, "", {bearer(owner)}).status == 204);
  CHECK(http.request("GET", "/api/v1/projects/" + id, "", {bearer(owner)}).status == 404);
  CHECK(http.request("POST", "/api/v1/projects", R"({"name":"nope"})", {bearer(viewer)}).status ==
        403);
}

TEST_CASE("api: users are managed by admins, and password changes and disabling cut sessions") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string name = "alice" + std::to_string(unique());
  auto created = http.request(
      "POST", "/api/v1/users",
      json::serialize(json::object{
          {"username", name}, {"password", "alice-password"}, {"org_role", "operator"}}),
      {bearer(owner)});
  REQUIRE(created.status == 201);
  const auto user = parse(created).at("user").as_object();
  const std::string id = str(user, "id");
  CHECK(str(user, "org_role") == "operator");
  CHECK(str(user, "auth_source") == "local");
  CHECK(created.body.find("password") == std::string::npos);
  CHECK(http.request("POST", "/api/v1/users",
                     json::serialize(json::object{{"username", name}, {"password", "another-one"}}),
                     {bearer(owner)})
            .status == 409);
  CHECK(http.request("POST", "/api/v1/users", R"({"username":"shorty","password":"short"})",
                     {bearer(owner)})
            .status == 422);
  CHECK(http.request("POST", "/api/v1/users",
                     R"({"username":"rooty","password":"long-enough","org_role":"root"})",
                     {bearer(owner)})
            .status == 400);

  const auto alice = login(http, name, "alice-password");
  CHECK(http.request("GET", "/api/v1/users", "", {bearer(alice)}).status == 403);
  auto changed = http.request("PATCH", "/api/v1/users/" + id,
                              R"({"password":"new-alice-password"})", {bearer(owner)});
  CHECK(changed.status == 200);
  CHECK(http.request("POST", "/api/v1/auth/refresh",
                     json::serialize(json::object{{"refresh_token", alice.refresh}}))
            .status == 401);
  CHECK(http.request(
                "POST", "/api/v1/auth/login",
                json::serialize(json::object{{"username", name}, {"password", "alice-password"}}))
            .status == 401);
  const auto again = login(http, name, "new-alice-password");
  CHECK(http.request("PATCH", "/api/v1/users/" + id, R"({"disabled":true})", {bearer(owner)})
            .status == 200);
  CHECK(http.request("GET", "/api/v1/auth/me", "", {bearer(again)}).status == 401);
  CHECK(http.request("PATCH", "/api/v1/users/" + owner.userId, R"({"disabled":true})",
                     {bearer(owner)})
            .status == 409);  // nobody disables themselves
  CHECK(http.request("PATCH", "/api/v1/users/" + id, R"({"disabled":"yes"})", {bearer(owner)})
            .status == 400);
}

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

TEST_CASE("api: login is limited to 5 attempts per username per minute") {
  HttpClient http(server().baseUrl());
  const std::string body =
      R"({"username":"limited-user-)" + std::to_string(unique()) + R"(","password":"x"})";
  int limited = 0;
  for (int i = 0; i < 6; ++i) {
    auto r = http.request("POST", "/api/v1/auth/login", body,
                          {"X-Forwarded-For: 10.9.8." + std::to_string(i)});
    if (r.status == 429) {
      ++limited;
      CHECK(r.header("retry-after") == "60");
    } else {
      CHECK(r.status == 401);
    }
  }
  CHECK(limited == 1);  // the 6th
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
  auto big =
      http.request("POST", "/api/v1/projects",
                   "{\"name\":\"" + std::string(2 * 1024 * 1024, 'a') + "\"}", {bearer(owner)});
  CHECK(big.status == 413);
  HttpClient again(server().baseUrl());
  CHECK(again.request("GET", "/healthz").status == 200);
  CHECK(server().running());
}

// The free plan allows one certificate in the whole organisation, so one case owns them all.
TEST_CASE("api: certificates are queued for issuance, listed, capped by the licence and deleted") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string project = createProject(http, owner);
  const std::string other = createProject(http, owner);
  const std::string base = "/api/v1/projects/" + project;

  auto created = http.request(
      "POST", base + "/certificates",
      R"({"common_name":"www.example.com","sans":["api.example.com"],"key_type":"ecdsa_p384"})",
      {bearer(owner)});
  REQUIRE_MESSAGE(created.status == 202, created.body);
  const auto body = parse(created);
  const auto cert = body.at("certificate").as_object();
  const std::string certId = str(cert, "id");
  CHECK(str(cert, "status") == "issuing");
  CHECK(str(cert, "key_type") == "ecdsa_p384");
  CHECK(str(cert, "issuer_type") == "acme");
  CHECK(cert.at("sans").as_array().size() == 2);
  CHECK(cert.at("auto_renew").as_bool());
  CHECK(cert.at("renewal_threshold_days").as_int64() == 30);
  CHECK(cert.at("expires_at").is_null());
  CHECK(created.body.find("private_key") == std::string::npos);
  const auto job = body.at("job").as_object();
  CHECK(str(job, "type") == "issue_certificate");
  CHECK(str(job, "status") == "pending");
  CHECK(str(job, "certificate_id") == certId);
  const std::string jobId = str(job, "id");

  CHECK(http.request("POST", base + "/certificates", R"({"common_name":"Not A Name"})",
                     {bearer(owner)})
            .status == 422);
  CHECK(http.request("POST", base + "/certificates",
                     R"({"common_name":"a.example.com","key_type":"dsa"})", {bearer(owner)})
            .status == 400);
  CHECK(http.request("POST", base + "/certificates",
                     R"({"common_name":"a.example.com","renewal_threshold_days":0})",
                     {bearer(owner)})
            .status == 422);
  auto capped = http.request("POST", "/api/v1/projects/" + other + "/certificates",
                             R"({"common_name":"second.example.com"})", {bearer(owner)});
  CHECK(capped.status == 409);  // the free plan's cap of 1, across projects
  CHECK(parse(capped).at("error").as_string().find("licence") != std::string::npos);

  auto got = http.request("GET", base + "/certificates/" + certId, "", {bearer(owner)});
  REQUIRE(got.status == 200);
  CHECK(str(parse(got).at("certificate").as_object(), "id") == certId);
  CHECK(http.request("GET", "/api/v1/projects/" + other + "/certificates/" + certId, "",
                     {bearer(owner)})
            .status == 404);
  auto listed = parse(
      http.request("GET", base + "/certificates?status=issuing,active&sort=expires_at&order=asc",
                   "", {bearer(owner)}));
  CHECK(listed.at("total").as_int64() == 1);
  CHECK(parse(http.request("GET", base + "/certificates?status=active", "", {bearer(owner)}))
            .at("total")
            .as_int64() == 0);
  CHECK(http.request("GET", base + "/certificates?status=bogus", "", {bearer(owner)}).status ==
        400);
  CHECK(http.request("GET", base + "/certificates?sort=bogus", "", {bearer(owner)}).status == 400);
  CHECK(http.request("GET", base + "/certificates?order=up", "", {bearer(owner)}).status == 400);
  CHECK(http.request("GET", base + "/certificates?expiring_within_days=-1", "", {bearer(owner)})
            .status == 400);
  CHECK(http.request("POST", base + "/certificates/" + certId + "/renew", "", {bearer(owner)})
            .status == 409);

  // Jobs.
  auto jobs =
      parse(http.request("GET", base + "/jobs?type=issue_certificate", "", {bearer(owner)}));
  CHECK(jobs.at("total").as_int64() == 1);
  CHECK(http.request("GET", base + "/jobs?status=zombie", "", {bearer(owner)}).status == 400);
  auto one = http.request("GET", base + "/jobs/" + jobId, "", {bearer(owner)});
  REQUIRE(one.status == 200);
  CHECK(str(parse(one).at("job").as_object(), "status") == "pending");
  auto logs = parse(http.request("GET", base + "/jobs/" + jobId + "/logs", "", {bearer(owner)}));
  CHECK(logs.contains("logs"));
  CHECK(logs.at("total").as_int64() == 0);
  CHECK(http.request("GET", "/api/v1/projects/" + other + "/jobs/" + jobId, "", {bearer(owner)})
            .status == 404);

  const auto operatorUser = userWithRole(http, owner, "viewer");
  REQUIRE(http.request("PUT", base + "/members/" + operatorUser.userId, R"({"role":"operator"})",
                       {bearer(owner)})
              .status == 200);
  auto cancelled =
      http.request("POST", base + "/jobs/" + jobId + "/cancel", "", {bearer(operatorUser)});
  REQUIRE_MESSAGE(cancelled.status == 200, cancelled.body);
  CHECK(str(parse(cancelled).at("job").as_object(), "status") == "cancelled");
  CHECK(http.request("POST", base + "/jobs/" + jobId + "/cancel", "", {bearer(operatorUser)})
            .status == 409);
  CHECK(
      http.request("POST", base + "/jobs/" + jobId + "/retry", "", {bearer(operatorUser)}).status ==
      403);
  auto retried = http.request("POST", base + "/jobs/" + jobId + "/retry", "", {bearer(owner)});
  REQUIRE(retried.status == 200);
  CHECK(str(parse(retried).at("job").as_object(), "status") == "pending");

  CHECK(
      http.request("DELETE", base + "/certificates/" + certId, "", {bearer(operatorUser)}).status ==
      403);
  auto blocked = http.request("DELETE", "/api/v1/projects/" + project, "", {bearer(owner)});
  CHECK(blocked.status == 409);
  CHECK(str(parse(blocked), "code") == "DEPENDENCY_CONFLICT");
  CHECK(parse(blocked).at("references").as_array().size() == 1);
  CHECK(http.request("DELETE", base + "/certificates/" + certId, "", {bearer(owner)}).status ==
        204);
  CHECK(http.request("GET", base + "/certificates/" + certId, "", {bearer(owner)}).status == 404);
  // The licence slot is free again.
  CHECK(http.request("POST", "/api/v1/projects/" + other + "/certificates",
                     R"({"common_name":"second.example.com"})", {bearer(owner)})
            .status == 202);
}

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

TEST_CASE("api: TOTP enrolment, the login challenge, OTP verify and disabling") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string name = "otp" + std::to_string(unique());
  REQUIRE(http.request(
                  "POST", "/api/v1/users",
                  json::serialize(json::object{{"username", name}, {"password", "otp-password-1"}}),
                  {bearer(owner)})
              .status == 201);
  const auto s = login(http, name, "otp-password-1");
  auto setup = http.request("POST", "/api/v1/auth/totp/setup", "", {bearer(s)});
  REQUIRE_MESSAGE(setup.status == 200, setup.body);
  const std::string secret = str(parse(setup), "secret");
  CHECK(str(parse(setup), "otpauth_url").starts_with("otpauth://totp/CertSteward:" + name));
  const auto key = certsteward::domain::base32Decode(secret);
  REQUIRE(key.has_value());
  certsteward::adapters::crypto::OpenSslOtpHasher hasher;
  const auto code = [&] {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    const auto step = std::chrono::duration_cast<std::chrono::seconds>(now).count() / 30;
    return certsteward::domain::hotp(hasher, *key, static_cast<std::uint64_t>(step));
  };
  CHECK(http.request("POST", "/api/v1/auth/totp/enable", R"({"code":"000000"})", {bearer(s)})
            .status == 422);
  REQUIRE(http.request("POST", "/api/v1/auth/totp/enable",
                       json::serialize(json::object{{"code", code()}}), {bearer(s)})
              .status == 200);
  auto me = http.request("GET", "/api/v1/auth/me", "", {bearer(s)});
  CHECK(me.body.find(secret) == std::string::npos);
  CHECK(parse(me).at("user").as_object().at("totp_enabled").as_bool());

  auto challenge = http.request(
      "POST", "/api/v1/auth/login",
      json::serialize(json::object{{"username", name}, {"password", "otp-password-1"}}),
      {freshClientAddress()});
  REQUIRE(challenge.status == 200);
  const auto c = parse(challenge);
  CHECK(c.at("otp_required").as_bool());
  CHECK_FALSE(c.at("otp_setup_required").as_bool());
  CHECK_FALSE(c.contains("access_token"));
  CHECK(challenge.all("set-cookie").empty());
  const std::string session = str(c, "otp_session_id");
  CHECK(http.request("GET", "/api/v1/auth/me", "", {"Authorization: Bearer " + session}).status ==
        401);
  auto noHeader = http.request("POST", "/api/v1/auth/otp/verify",
                               json::serialize(json::object{{"code", code()}}));
  CHECK(noHeader.status == 401);
  CHECK(str(parse(noHeader), "code") == "TOKEN_MISSING");
  CHECK(http.request("POST", "/api/v1/auth/otp/verify", R"({"code":"000000"})",
                     {"X-OTP-Session-ID: " + session})
            .status == 401);
  CHECK(http.request("POST", "/api/v1/auth/otp/verify",
                     json::serialize(json::object{{"code", code()}}), {"X-OTP-Session-ID: garbage"})
            .status == 401);
  auto verified = http.request("POST", "/api/v1/auth/otp/verify",
                               json::serialize(json::object{{"code", code()}}),
                               {"X-OTP-Session-ID: " + session, freshClientAddress()});
  REQUIRE_MESSAGE(verified.status == 200, verified.body);
  const auto tokens = parse(verified);
  CHECK(str(tokens, "token_type") == "Bearer");
  CHECK(verified.all("set-cookie").size() == 3);
  const std::string access = str(tokens, "access_token");
  CHECK(http.request("GET", "/api/v1/auth/me", "", {"Authorization: Bearer " + access}).status ==
        200);

  CHECK(http.request("POST", "/api/v1/auth/totp/disable", R"({"code":"000000"})",
                     {"Authorization: Bearer " + access})
            .status == 422);
  REQUIRE(http.request("POST", "/api/v1/auth/totp/disable",
                       json::serialize(json::object{{"code", code()}}),
                       {"Authorization: Bearer " + access})
              .status == 200);
  const auto plain = login(http, name, "otp-password-1");  // tokens straight away again
  CHECK_FALSE(plain.access.empty());
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
    return *certsteward::adapters::crypto::Ed25519LicenseVerifier::sign(
        priv, json::serialize(json::object{{"license_id", "lic-e2e"},
                                           {"plan_name", "Enterprise 3"},
                                           {"cert_limit", limit},
                                           {"exp", exp}}));
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

TEST_CASE("api: configuration resources with secrets sealed at rest and cross-resource rules") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string project = createProject(http, owner);
  const std::string base = "/api/v1/projects/" + project;
  const std::string tsig = "TSIG-SECRET-" + std::to_string(unique()) + "-c2VjcmV0LWJ5dGVz";

  CHECK(http.request("POST", base + "/dns-credentials", R"({"name":"x","provider":"route66"})",
                     {bearer(owner)})
            .status == 400);
  auto cred = http.request(
      "POST", base + "/dns-credentials",
      json::serialize(json::object{{"name", "bind"},
                                   {"provider", "rfc2136"},
                                   {"settings", json::object{{"server", "127.0.0.1:53"}}},
                                   {"secret", tsig}}),
      {bearer(owner)});
  REQUIRE_MESSAGE(cred.status == 201, cred.body);
  const auto credential = parse(cred).at("dns_credential").as_object();
  const std::string credId = str(credential, "id");
  CHECK(credential.at("secret_configured").as_bool());
  CHECK(cred.body.find(tsig) == std::string::npos);
  CHECK(parse(http.request("GET", base + "/dns-credentials", "", {bearer(owner)}))
            .at("total")
            .as_int64() == 1);

  CHECK(http.request("POST", base + "/zones",
                     R"({"domain":"example.com","dns_credential_id":"0123456789abcdef01234567"})",
                     {bearer(owner)})
            .status == 422);
  CHECK(http.request("POST", base + "/zones",
                     json::serialize(
                         json::object{{"domain", "Not A Domain"}, {"dns_credential_id", credId}}),
                     {bearer(owner)})
            .status == 422);
  auto zone = http.request(
      "POST", base + "/zones",
      json::serialize(json::object{{"domain", "example.com"}, {"dns_credential_id", credId}}),
      {bearer(owner)});
  REQUIRE_MESSAGE(zone.status == 201, zone.body);
  const std::string zoneId = str(parse(zone).at("zone").as_object(), "id");
  auto inUse = http.request("DELETE", base + "/dns-credentials/" + credId, "", {bearer(owner)});
  CHECK(inUse.status == 409);
  CHECK(str(parse(inUse), "code") == "DEPENDENCY_CONFLICT");
  REQUIRE(http.request("PATCH", base + "/dns-credentials/" + credId, R"({"active":false})",
                       {bearer(owner)})
              .status == 200);
  CHECK(http.request("POST", base + "/zones",
                     json::serialize(
                         json::object{{"domain", "example.org"}, {"dns_credential_id", credId}}),
                     {bearer(owner)})
            .status == 422);  // inactive credential
  CHECK(http.request("DELETE", base + "/zones/" + zoneId, "", {bearer(owner)}).status == 204);
  CHECK(http.request("DELETE", base + "/dns-credentials/" + credId, "", {bearer(owner)}).status ==
        204);

  CHECK(http.request("POST", base + "/acme-accounts",
                     R"({"name":"le","directory_url":"http://insecure/dir"})", {bearer(owner)})
            .status == 400);
  auto acme = http.request(
      "POST", base + "/acme-accounts",
      R"({"name":"le","directory_url":"https://127.0.0.1:14000/dir","email":"ops@example.com","eab_kid":"kid-1","eab_hmac_key":"EAB-HMAC-SECRET-zzz"})",
      {bearer(owner)});
  REQUIRE(acme.status == 201);
  CHECK(parse(acme).at("acme_account").as_object().at("eab_configured").as_bool());
  CHECK(str(parse(acme).at("acme_account").as_object(), "status") == "pending");
  CHECK(acme.body.find("EAB-HMAC-SECRET") == std::string::npos);

  CHECK(
      http.request("POST", base + "/credentials", R"({"name":"k","kind":"magic"})", {bearer(owner)})
          .status == 400);
  auto sshKey = http.request(
      "POST", base + "/credentials",
      R"({"name":"deploy","kind":"ssh_key","username":"deploy","secret":"-----BEGIN OPENSSH PRIVATE KEY-----SSH-PRIVATE"})",
      {bearer(owner)});
  CHECK(sshKey.status == 201);
  CHECK(sshKey.body.find("SSH-PRIVATE") == std::string::npos);

  auto channel = http.request(
      "POST", base + "/notification-channels",
      R"({"name":"ops","kind":"webhook","settings":{"url":"http://127.0.0.1:9/hook"},"secret":"HOOK-SIGNING-SECRET"})",
      {bearer(owner)});
  REQUIRE(channel.status == 201);
  const std::string channelId = str(parse(channel).at("notification_channel").as_object(), "id");
  CHECK(http.request("POST", base + "/notification-rules",
                     R"({"name":"r","events":["cert.exploded"]})", {bearer(owner)})
            .status == 400);
  CHECK(
      http.request(
              "POST", base + "/notification-rules",
              R"({"name":"r","events":["job.failed"],"channel_ids":["0123456789abcdef01234567"]})",
              {bearer(owner)})
          .status == 422);
  auto rule = http.request(
      "POST", base + "/notification-rules",
      json::serialize(json::object{{"name", "failures"},
                                   {"events", json::array{"job.failed", "cert.renewal_failed"}},
                                   {"channel_ids", json::array{json::value(channelId)}}}),
      {bearer(owner)});
  REQUIRE_MESSAGE(rule.status == 201, rule.body);
  CHECK(parse(rule).at("notification_rule").as_object().at("events").as_array().size() == 2);

  const auto viewer = userWithRole(http, owner, "viewer");
  CHECK(http.request("GET", base + "/credentials", "", {bearer(viewer)}).status == 404);
  REQUIRE(http.request("PUT", base + "/members/" + viewer.userId, R"({"role":"viewer"})",
                       {bearer(owner)})
              .status == 200);
  CHECK(http.request("GET", base + "/credentials", "", {bearer(viewer)}).status == 200);
  CHECK(http.request("POST", base + "/credentials", R"({"name":"x","kind":"token"})",
                     {bearer(viewer)})
            .status == 403);

  // Secrets are sealed at rest: none of the plaintexts is in the database file.
  std::ifstream db(server().databasePath(), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(db)), std::istreambuf_iterator<char>());
  std::ifstream wal(server().databasePath().string() + "-wal", std::ios::binary);
  const std::string walBytes((std::istreambuf_iterator<char>(wal)),
                             std::istreambuf_iterator<char>());
  for (const std::string& secret :
       {tsig, std::string("EAB-HMAC-SECRET"), std::string("SSH-PRIVATE"),
        std::string("HOOK-SIGNING-SECRET")}) {
    CAPTURE(secret);
    CHECK(bytes.find(secret) == std::string::npos);
    CHECK(walBytes.find(secret) == std::string::npos);
  }
  CHECK(bytes.size() + walBytes.size() > 0);
}

TEST_CASE("api: modules, distributions, settings, and actions that await their adapters") {
  ServerProcess fresh(
      std::map<std::string, std::string>{{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", kOwner},
                                         {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", kOwnerPassword}});
  HttpClient http(fresh.baseUrl());
  const auto owner = login(http, kOwner, kOwnerPassword);
  const std::string project = createProject(http, owner);
  const std::string base = "/api/v1/projects/" + project;
  auto credential =
      http.request("POST", base + "/credentials",
                   R"({"name":"deploy","kind":"ssh_key","secret":"k"})", {bearer(owner)});
  const std::string credId = str(parse(credential).at("credential").as_object(), "id");
  CHECK(http.request("POST", base + "/modules", R"({"name":"m","module":"carrier-pigeon"})",
                     {bearer(owner)})
            .status == 422);
  CHECK(
      http.request(
              "POST", base + "/modules",
              R"({"name":"m","module":"ssh","targets":[{"name":"web1","credential_id":"0123456789abcdef01234567"}]})",
              {bearer(owner)})
          .status == 422);
  CHECK(http.request("POST", base + "/modules", R"({"name":"m","module":"ssh","targets":"web1"})",
                     {bearer(owner)})
            .status == 400);
  auto module = http.request(
      "POST", base + "/modules",
      json::serialize(json::object{
          {"name", "web"},
          {"module", "ssh"},
          {"targets", json::array{json::object{{"name", "web1"},
                                               {"settings", json::object{{"host", "127.0.0.1"}}},
                                               {"credential_id", credId}}}},
          {"auto_rollback_on_failure", true}}),
      {bearer(owner)});
  REQUIRE_MESSAGE(module.status == 201, module.body);
  const std::string moduleId = str(parse(module).at("module").as_object(), "id");
  CHECK(parse(module).at("module").as_object().at("targets").as_array().size() == 1);

  auto cert = http.request("POST", base + "/certificates", R"({"common_name":"www.example.com"})",
                           {bearer(owner)});
  REQUIRE(cert.status == 202);
  const std::string certId = str(parse(cert).at("certificate").as_object(), "id");
  const std::string dists = base + "/certificates/" + certId + "/distributions";
  CHECK(http.request("POST", dists, R"({"module_config_id":"0123456789abcdef01234567"})",
                     {bearer(owner)})
            .status == 422);
  auto dist =
      http.request("POST", dists, json::serialize(json::object{{"module_config_id", moduleId}}),
                   {bearer(owner)});
  REQUIRE_MESSAGE(dist.status == 201, dist.body);
  const std::string distId = str(parse(dist).at("distribution").as_object(), "id");
  auto listed = http.request("GET", dists, "", {bearer(owner)});
  REQUIRE(listed.status == 200);
  boost::system::error_code ec;
  const auto arr = json::parse(listed.body, ec);
  REQUIRE(arr.is_array());  // a bare array, as the spec says
  CHECK(arr.as_array().size() == 1);
  CHECK(parse(http.request("GET", base + "/distributions", "", {bearer(owner)}))
            .at("total")
            .as_int64() == 1);
  for (const char* action : {"/dry-run", "/execute", "/rollback"}) {
    CHECK(http.request("POST", dists + "/" + distId + action, "", {bearer(owner)}).status == 503);
  }
  CHECK(http.request("POST", dists + "/0123456789abcdef01234567/execute", "", {bearer(owner)})
            .status == 404);
  CHECK(http.request("DELETE", base + "/modules/" + moduleId, "", {bearer(owner)}).status == 409);
  CHECK(http.request("DELETE", base + "/credentials/" + credId, "", {bearer(owner)}).status == 409);
  CHECK(http.request("DELETE", "/api/v1/projects/" + project + "/certificates/" + certId, "",
                     {bearer(owner)})
            .status == 409);  // a distribution still refers to it
  CHECK(http.request("DELETE", dists + "/" + distId, "", {bearer(owner)}).status == 204);
  CHECK(http.request("DELETE", base + "/modules/" + moduleId, "", {bearer(owner)}).status == 204);

  auto acme = http.request("POST", base + "/acme-accounts",
                           R"({"name":"le","directory_url":"https://127.0.0.1:14000/dir"})",
                           {bearer(owner)});
  CHECK(http.request("POST",
                     base + "/acme-accounts/" +
                         str(parse(acme).at("acme_account").as_object(), "id") + "/validate",
                     "", {bearer(owner)})
            .status == 503);
  CHECK(http.request("POST", base + "/acme-accounts/0123456789abcdef01234567/validate", "",
                     {bearer(owner)})
            .status == 404);
  auto dns = http.request("POST", base + "/dns-credentials", R"({"name":"b","provider":"rfc2136"})",
                          {bearer(owner)});
  const std::string dnsId = str(parse(dns).at("dns_credential").as_object(), "id");
  CHECK(http.request("POST", base + "/dns-credentials/" + dnsId + "/test", "", {bearer(owner)})
            .status == 503);
  auto zone = http.request(
      "POST", base + "/zones",
      json::serialize(json::object{{"domain", "example.com"}, {"dns_credential_id", dnsId}}),
      {bearer(owner)});
  CHECK(http.request(
                "GET",
                base + "/zones/" + str(parse(zone).at("zone").as_object(), "id") + "/rate-limits",
                "", {bearer(owner)})
            .status == 503);

  const auto admin = userWithRole(http, owner, "admin");
  CHECK(http.request("GET", "/api/v1/settings/ldap", "", {bearer(admin)}).status == 403);
  auto put = http.request(
      "PUT", "/api/v1/settings/ldap",
      R"({"host":"127.0.0.1","port":3389,"base_dn":"dc=example,dc=test","bind_dn":"cn=svc","bind_password":"LDAP-BIND-SECRET"})",
      {bearer(owner)});
  REQUIRE_MESSAGE(put.status == 200, put.body);
  CHECK(put.body.find("LDAP-BIND-SECRET") == std::string::npos);
  auto got = http.request("GET", "/api/v1/settings/ldap", "", {bearer(owner)});
  CHECK(parse(got).at("bind_password_configured").as_bool());
  CHECK(parse(got).at("port").as_int64() == 3389);
  CHECK(got.body.find("sealed") == std::string::npos);
  CHECK(http.request("PUT", "/api/v1/settings/ldap", R"({"host":"h","base_dn":"b","port":70000})",
                     {bearer(owner)})
            .status == 400);
  CHECK(http.request("POST", "/api/v1/settings/ldap/test", "", {bearer(owner)}).status == 503);
  auto providers = http.request("GET", "/api/v1/ca-providers", "", {bearer(admin)});
  CHECK(providers.status == 200);
  CHECK(str(parse(providers).at("ca_providers").as_array()[0].as_object(), "issuer_type") ==
        "acme");
}
