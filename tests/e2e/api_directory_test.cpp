// End to end over real HTTP: directory users against a real slapd on 127.0.0.1 with STARTTLS
// and a certificate from a throw-away CA. The owner saves the settings (422 naming a broken
// field), the test endpoint reports each step and a full login that creates nobody; people log
// in with the role their groups map to, a filter-injection username is the ordinary refusal, a
// group change in the directory applies at the next login, a directory user's password cannot
// be changed here, and with slapd stopped directory users get 503 while the local owner still
// logs in and sessions already open keep working.
#include "e2e/api_support.hpp"
#include "support/slapd_server.hpp"

using namespace certsteward::testing::api;
using certsteward::testing::SlapdServer;

namespace {

HttpResult attempt(HttpClient& http, const std::string& user, const std::string& password) {
  return http.request("POST", "/api/v1/auth/login",
                      json::serialize(json::object{{"username", user}, {"password", password}}),
                      {freshClientAddress()});
}

std::string roleOf(const HttpResult& login) {
  return str(parse(login).at("user").as_object(), "org_role");
}

}  // namespace

TEST_CASE("api directory: LDAP over STARTTLS maps groups to roles, and survives its outage") {
  SlapdServer slapd{true};
  REQUIRE_MESSAGE(slapd.available(), slapd.reason());
  ServerProcess srv(
      std::map<std::string, std::string>{{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", kOwner},
                                         {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", kOwnerPassword}});
  HttpClient http(srv.baseUrl());
  const auto owner = login(http, kOwner, kOwnerPassword);

  // Broken settings: the field is named, nothing is saved.
  auto clear = http.request(
      "PUT", "/api/v1/settings/ldap",
      R"({"host":"ldap.example.test","security":"none","base_dn":"dc=example,dc=test"})",
      {bearer(owner)});
  CHECK(clear.status == 422);
  CHECK(str(parse(clear), "field") == "security");
  auto typo =
      http.request("PUT", "/api/v1/settings/ldap",
                   R"({"host":"127.0.0.1","base_dn":"dc=x","group_mapping":[]})", {bearer(owner)});
  CHECK(typo.status == 400);
  CHECK(typo.body.find("group_mapping") != std::string::npos);
  auto badRole = http.request(
      "PUT", "/api/v1/settings/ldap",
      R"({"host":"127.0.0.1","base_dn":"dc=x","default_org_role":"emperor"})", {bearer(owner)});
  CHECK(badRole.status == 400);
  CHECK(http.request("POST", "/api/v1/settings/ldap/test", "", {bearer(owner)}).status == 409);

  const json::object settings{
      {"url", "ldap://127.0.0.1:" + std::to_string(slapd.port())},
      {"security", "starttls"},
      {"ca_bundle", slapd.caPem()},
      {"bind_dn", SlapdServer::kService},
      {"bind_password", SlapdServer::kServicePassword},
      {"base_dn", SlapdServer::kBase},
      {"user_filter", "(&(objectClass=inetOrgPerson)(uid={username}))"},
      {"group_base_dn", SlapdServer::kGroups},
      {"group_mappings",
       json::array{json::object{{"group_dn", SlapdServer::kAdmins}, {"org_role", "admin"}},
                   json::object{{"group_dn", SlapdServer::kOperators}, {"org_role", "operator"}}}},
      {"default_org_role", "viewer"},
      {"connect_timeout_seconds", 3}};
  auto saved =
      http.request("PUT", "/api/v1/settings/ldap", json::serialize(settings), {bearer(owner)});
  REQUIRE_MESSAGE(saved.status == 200, saved.body);
  CHECK(saved.body.find(SlapdServer::kServicePassword) == std::string::npos);
  CHECK(parse(saved).at("bind_password_configured").as_bool());
  CHECK(str(parse(saved), "security") == "starttls");
  CHECK(parse(saved).at("port").as_int64() == slapd.port());

  // The test endpoint: every step, then a full login that creates nobody.
  auto tested = http.request("POST", "/api/v1/settings/ldap/test", "", {bearer(owner)});
  REQUIRE_MESSAGE(tested.status == 200, tested.body);
  const auto report = parse(tested);
  CHECK(report.at("ok").as_bool());
  std::vector<std::string> steps;
  for (const auto& s : report.at("steps").as_array())
    steps.push_back(str(s.as_object(), "step"));
  CHECK(steps == std::vector<std::string>{"connect", "tls", "bind", "search"});
  auto full = http.request("POST", "/api/v1/settings/ldap/test",
                           R"({"username":"carol","password":"carol password"})", {bearer(owner)});
  REQUIRE(full.status == 200);
  const auto fullReport = parse(full);
  const auto& last = fullReport.at("steps").as_array().back().as_object();
  CHECK(str(last, "step") == "login");
  CHECK(last.at("ok").as_bool());
  CHECK(str(last, "message").find("org role admin") != std::string::npos);
  CHECK(full.body.find("carol password") == std::string::npos);
  CHECK(http.request("GET", "/api/v1/users", "", {bearer(owner)}).body.find("carol") ==
        std::string::npos);

  // Logins: the mapped role, the directory as the user's source.
  auto alice = attempt(http, "alice", "alice password");
  REQUIRE_MESSAGE(alice.status == 200, alice.body);
  CHECK(roleOf(alice) == "admin");
  const auto aliceToken = str(parse(alice), "access_token");
  auto me = http.request("GET", "/api/v1/auth/me", "", {"Authorization: Bearer " + aliceToken});
  REQUIRE(me.status == 200);
  CHECK(me.body.find(R"("auth_source":"ldap")") != std::string::npos);
  auto bob = attempt(http, "bob", "bob password");
  REQUIRE_MESSAGE(bob.status == 200, bob.body);
  CHECK(roleOf(bob) == "operator");
  CHECK(roleOf(attempt(http, "dave", "dave password")) == "viewer");

  // Every wrong login is the local refusal.
  const auto localWrong = attempt(http, kOwner, "wrong password");
  REQUIRE(localWrong.status == 401);
  for (const char* user : {"*)(uid=*", "*", "alice)(|(uid=*", "mallory"}) {
    CAPTURE(user);
    auto refused = attempt(http, user, "alice password");
    CHECK(refused.status == 401);
    CHECK(refused.body == localWrong.body);
  }
  CHECK(attempt(http, "bob", "wrong").body == localWrong.body);

  // The directory moves bob to the admins: his next login carries the new role.
  REQUIRE(slapd.moveMember("bob", SlapdServer::kOperators, SlapdServer::kAdmins));
  auto promoted = attempt(http, "bob", "bob password");
  REQUIRE(promoted.status == 200);
  CHECK(roleOf(promoted) == "admin");
  const auto bobId = str(parse(promoted).at("user").as_object(), "id");
  auto created = http.request("GET", "/api/v1/audit-logs?action=user.create", "", {bearer(owner)});
  CHECK(created.body.find("ldap org_role=operator") != std::string::npos);

  // The directory keeps the password.
  auto change = http.request("PATCH", "/api/v1/users/" + bobId,
                             R"({"password":"a brand new password"})", {bearer(owner)});
  CHECK(change.status == 409);
  CHECK(change.body.find("directory") != std::string::npos);

  // The directory goes away: 503 for its users, the local owner unaffected, sessions open.
  slapd.stop();
  auto down = attempt(http, "alice", "alice password");
  CHECK(down.status == 503);
  CHECK(down.body.find("unreachable") != std::string::npos);
  CHECK(attempt(http, kOwner, kOwnerPassword).status == 200);
  CHECK(
      http.request("GET", "/api/v1/auth/me", "", {"Authorization: Bearer " + aliceToken}).status ==
      200);
  auto failing = http.request("POST", "/api/v1/settings/ldap/test", "", {bearer(owner)});
  REQUIRE(failing.status == 200);
  CHECK_FALSE(parse(failing).at("ok").as_bool());

  // Back: logins work again.
  slapd.start();
  REQUIRE_MESSAGE(slapd.available(), slapd.reason());
  CHECK(attempt(http, "alice", "alice password").status == 200);
}
