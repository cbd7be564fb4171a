// End to end over real HTTP: authentication — login, tokens, refresh, logout, cookies and CSRF,
// rate limits, TOTP.
#include <map>

#include "e2e/api_support.hpp"

using namespace certsteward::testing::api;

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

TEST_CASE(
    "api: with no trusted proxy configured, X-Forwarded-For does not move a client past the "
    "per-address login limit") {
  ServerProcess plain({}, "server.trusted_proxies =\n");  // the default: no proxy is trusted
  HttpClient http(plain.baseUrl());
  int limited = 0;
  // 10 a minute per address, counted in fixed one-minute windows: 21 attempts (each under
  // another name and address) put at least 11 in one window, however they straddle a boundary.
  for (int i = 0; i < 21; ++i) {
    const std::string body =
        R"({"username":"rotating-)" + std::to_string(i) + R"(","password":"wrong-password"})";
    auto r = http.request("POST", "/api/v1/auth/login", body,
                          {"X-Forwarded-For: 198.51.100." + std::to_string(i + 1)});
    if (r.status == 429) {
      ++limited;
    } else {
      CHECK(r.status == 401);
    }
  }
  CHECK(limited >= 1);
  CHECK(limited <= 11);
}

TEST_CASE("api: login is limited to 5 attempts per username per minute") {
  HttpClient http(server().baseUrl());
  const std::string body =
      R"({"username":"limited-user-)" + std::to_string(unique()) + R"(","password":"x"})";
  int limited = 0;
  // Fixed one-minute windows: 11 attempts put at least 6 in one, however they straddle a
  // boundary (each from its own address, so only the username's count applies).
  for (int i = 0; i < 11; ++i) {
    auto r = http.request("POST", "/api/v1/auth/login", body,
                          {"X-Forwarded-For: 10.9.8." + std::to_string(i)});
    if (r.status == 429) {
      ++limited;
      CHECK(r.header("retry-after") == "60");
    } else {
      CHECK(r.status == 401);
    }
  }
  CHECK(limited >= 1);  // the 6th of a window on
  CHECK(limited <= 6);
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
    return certsteward::services::hotp(hasher, *key, static_cast<std::uint64_t>(step));
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

TEST_CASE("api: /auth/me carries the role matrix a client uses to offer actions") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  auto me = http.request("GET", "/api/v1/auth/me", "", {bearer(owner)});
  REQUIRE(me.status == 200);
  const auto rules = parse(me).at("access_rules").as_array();
  CHECK(rules.size() == 20);
  std::map<std::string, std::pair<std::string, std::string>> byAction;
  for (const auto& r : rules) {
    const auto& o = r.as_object();
    const auto role = [&](const char* key) {
      return o.at(key).is_null() ? std::string("-") : std::string(o.at(key).as_string());
    };
    byAction[std::string(o.at("action").as_string())] = {role("org_role"), role("project_role")};
  }
  using Roles = std::pair<std::string, std::string>;
  CHECK(byAction.at("write_certificates") == Roles{"-", "operator"});
  CHECK(byAction.at("export_private_key") == Roles{"-", "admin"});
  CHECK(byAction.at("read_project") == Roles{"-", "viewer"});
  CHECK(byAction.at("manage_users") == Roles{"admin", "-"});
  CHECK(byAction.at("verify_audit_log") == Roles{"owner", "-"});
  CHECK(byAction.at("activate_license") == Roles{"owner", "-"});
  CHECK(byAction.at("manage_ca_providers") == Roles{"admin", "-"});
}
