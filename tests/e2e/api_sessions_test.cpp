// Sessions as a hostile user would try them: TOTP guessing across addresses and replaying a
// session or a code, Bearer logout, tokens outliving a password or role change, CSRF pairs of
// another session, and Idempotency-Key replays after a role change.
#include <utility>

#include "e2e/api_support.hpp"

using namespace certsteward::testing::api;

namespace {

struct TotpUser {
  std::string name;
  std::string password;
  std::string key;  // raw secret
};

std::string totpCode(const std::string& key, int stepOffset = 0) {
  certsteward::adapters::crypto::OpenSslOtpHasher hasher;
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const auto step = std::chrono::duration_cast<std::chrono::seconds>(now).count() / 30;
  return certsteward::services::hotp(hasher, key, static_cast<std::uint64_t>(step + stepOffset));
}

TotpUser enrolledUser(HttpClient& http) {
  const auto& owner = ownerSession(http);
  TotpUser u{"mfa" + std::to_string(unique()), "mfa-password-1", {}};
  REQUIRE(
      http.request("POST", "/api/v1/users",
                   json::serialize(json::object{{"username", u.name}, {"password", u.password}}),
                   {bearer(owner)})
          .status == 201);
  const auto s = login(http, u.name, u.password);
  auto setup = http.request("POST", "/api/v1/auth/totp/setup", "", {bearer(s)});
  REQUIRE(setup.status == 200);
  u.key = *certsteward::domain::base32Decode(str(parse(setup), "secret"));
  REQUIRE(http.request("POST", "/api/v1/auth/totp/enable",
                       json::serialize(json::object{{"code", totpCode(u.key)}}), {bearer(s)})
              .status == 200);
  return u;
}

std::string otpSession(HttpClient& http, const TotpUser& u) {
  auto r =
      http.request("POST", "/api/v1/auth/login",
                   json::serialize(json::object{{"username", u.name}, {"password", u.password}}),
                   {freshClientAddress()});
  REQUIRE(r.status == 200);
  return str(parse(r), "otp_session_id");
}

long verify(HttpClient& http, const std::string& session, const std::string& code) {
  return http
      .request("POST", "/api/v1/auth/otp/verify", json::serialize(json::object{{"code", code}}),
               {"X-OTP-Session-ID: " + session, freshClientAddress()})
      .status;
}

// A user the test can log in again as: the owner creates `<prefix><n>` with the password
// "password-<name>" and `role`; returns the name and the id.
std::pair<std::string, std::string> knownUser(HttpClient& http, const Session& owner,
                                              const std::string& prefix, const std::string& role) {
  const auto name = prefix + std::to_string(unique());
  auto created =
      http.request("POST", "/api/v1/users",
                   json::serialize(json::object{
                       {"username", name}, {"password", "password-" + name}, {"org_role", role}}),
                   {bearer(owner)});
  REQUIRE(created.status == 201);
  return {name, str(parse(created).at("user").as_object(), "id")};
}

// A six-digit code that is none of the three the server accepts now.
std::string wrongCode(const std::string& key) {
  for (int n = 0; n < 1000; ++n) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%06d", 123456 + n);
    const std::string c(buf);
    if (c != totpCode(key, -1) && c != totpCode(key) && c != totpCode(key, 1)) return c;
  }
  FAIL("no wrong code found");
  return {};
}

}  // namespace

TEST_CASE("sessions: an OTP session dies after 5 wrong codes, whatever the addresses") {
  HttpClient http(server().baseUrl());
  const auto u = enrolledUser(http);
  const auto session = otpSession(http, u);
  for (int i = 0; i < 5; ++i)
    CHECK(verify(http, session, wrongCode(u.key)) == 401);  // each from a new address
  CHECK(verify(http, session, totpCode(u.key)) == 401);     // the right code no longer opens it
}

TEST_CASE("sessions: an OTP session and a code are each good for one login") {
  HttpClient http(server().baseUrl());
  const auto u = enrolledUser(http);
  // Use the next step's code (accepted as drift): enrolment used this step's.
  const std::string code = totpCode(u.key, 1);
  const auto session = otpSession(http, u);
  REQUIRE(verify(http, session, code) == 200);
  CHECK(verify(http, session, code) == 401);  // the same session again
  const auto another = otpSession(http, u);
  CHECK(verify(http, another, code) == 401);  // the same code in its step, in a new session
}

TEST_CASE("sessions: too many OTP attempts for one user across sessions answer 429") {
  HttpClient http(server().baseUrl());
  const auto u = enrolledUser(http);
  int limited = 0;
  for (int s = 0; s < 3; ++s) {  // 3 sessions x 4 wrong codes = 12 > 10 per user
    const auto session = otpSession(http, u);
    for (int i = 0; i < 4; ++i) {
      if (verify(http, session, wrongCode(u.key)) == 429) ++limited;
    }
  }
  CHECK(limited == 2);
}

TEST_CASE("sessions: a Bearer logout ends the session, refresh token and access token alike") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const auto [name, id] = knownUser(http, owner, "logout", "viewer");
  const auto a = login(http, name, "password-" + name);
  const auto other = login(http, name, "password-" + name);  // a second session of the same user
  const auto b = userWithRole(http, owner, "viewer");
  // A logout that names another user's refresh token does not revoke it.
  REQUIRE(http.request("POST", "/api/v1/auth/logout",
                       json::serialize(json::object{{"refresh_token", b.refresh}}), {bearer(a)})
              .status == 204);
  CHECK(http.request("POST", "/api/v1/auth/refresh",
                     json::serialize(json::object{{"refresh_token", b.refresh}}),
                     {freshClientAddress()})
            .status == 200);
  // a's own session ended with the Bearer logout alone: its refresh and access tokens.
  auto refreshed = http.request("POST", "/api/v1/auth/refresh",
                                json::serialize(json::object{{"refresh_token", a.refresh}}),
                                {freshClientAddress()});
  CHECK(refreshed.status == 401);
  CHECK(http.request("GET", "/api/v1/auth/me", "", {bearer(a)}).status == 401);
  // The user's other session goes on.
  CHECK(http.request("GET", "/api/v1/auth/me", "", {bearer(other)}).status == 200);
  CHECK(http.request("POST", "/api/v1/auth/refresh",
                     json::serialize(json::object{{"refresh_token", other.refresh}}),
                     {freshClientAddress()})
            .status == 200);
}

TEST_CASE("sessions: a password change, a disable or a role change ends access tokens at once") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const auto [name, id] = knownUser(http, owner, "cut", "admin");
  const auto patch = [&](const json::object& change) {
    REQUIRE(http.request("PATCH", "/api/v1/users/" + id, json::serialize(change), {bearer(owner)})
                .status == 200);
  };
  auto before = login(http, name, "password-" + name);
  CHECK(http.request("GET", "/api/v1/users", "", {bearer(before)}).status == 200);
  patch({{"password", "password2-" + name}});
  CHECK(http.request("GET", "/api/v1/auth/me", "", {bearer(before)}).status == 401);
  auto after = login(http, name, "password2-" + name);  // a token issued after the change works
  CHECK(http.request("GET", "/api/v1/auth/me", "", {bearer(after)}).status == 200);

  patch({{"org_role", "viewer"}});
  CHECK(http.request("GET", "/api/v1/users", "", {bearer(after)}).status == 401);
  auto viewer = login(http, name, "password2-" + name);
  CHECK(http.request("GET", "/api/v1/users", "", {bearer(viewer)}).status == 403);

  patch({{"disabled", true}});
  CHECK(http.request("GET", "/api/v1/auth/me", "", {bearer(viewer)}).status == 401);
}

TEST_CASE("sessions: CSRF tokens are bound to their session") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const auto a = userWithRole(http, owner, "admin");
  const auto b = userWithRole(http, owner, "admin");
  const std::string body =
      json::serialize(json::object{{"name", "csrf " + std::to_string(unique())}});
  const auto cookieOf = [](const Session& s, const std::string& csrf) {
    return "Cookie: access_token=" + s.access + "; csrf_token=" + csrf;
  };
  // Any equal pair used to pass: a value of the attacker's choosing, or another session's token.
  CHECK(http.request("POST", "/api/v1/projects", body, {cookieOf(a, "x"), "X-CSRF-Token: x"})
            .status == 403);
  CHECK(http.request("POST", "/api/v1/projects", body,
                     {cookieOf(a, b.csrf), "X-CSRF-Token: " + b.csrf})
            .status == 403);
  CHECK(http.request("POST", "/api/v1/projects", body,
                     {cookieOf(a, a.csrf), "X-CSRF-Token: " + a.csrf})
            .status == 201);
  // A cookie refresh checks the same binding.
  const std::string refreshCookie = "Cookie: refresh_token=" + a.refresh + "; csrf_token=";
  CHECK(http.request("POST", "/api/v1/auth/refresh", "",
                     {refreshCookie + b.csrf, "X-CSRF-Token: " + b.csrf, freshClientAddress()})
            .status == 403);
  CHECK(http.request("POST", "/api/v1/auth/refresh", "",
                     {refreshCookie + a.csrf, "X-CSRF-Token: " + a.csrf, freshClientAddress()})
            .status == 200);
}

TEST_CASE("sessions: an Idempotency-Key replays only to its caller in the same roles") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const auto [name, id] = knownUser(http, owner, "idem", "admin");
  const auto admin = login(http, name, "password-" + name);
  const std::string body =
      json::serialize(json::object{{"name", "idem " + std::to_string(unique())}});
  const std::string key = "Idempotency-Key: key-" + std::to_string(unique());
  auto first = http.request("POST", "/api/v1/projects", body, {bearer(admin), key});
  REQUIRE(first.status == 201);
  auto replay = http.request("POST", "/api/v1/projects", body, {bearer(admin), key});
  CHECK(replay.status == 201);
  CHECK(replay.header("idempotent-replayed") == "true");
  // Another user with the same key and body: their own request, not the admin's answer.
  const auto other = userWithRole(http, owner, "viewer");
  auto foreign = http.request("POST", "/api/v1/projects", body, {bearer(other), key});
  CHECK(foreign.status == 403);
  // The admin demoted to viewer: the request is authorised afresh, not replayed.
  REQUIRE(http.request("PATCH", "/api/v1/users/" + id, R"({"org_role":"viewer"})", {bearer(owner)})
              .status == 200);
  const auto demoted = login(http, name, "password-" + name);
  auto afterDemotion = http.request("POST", "/api/v1/projects", body, {bearer(demoted), key});
  CHECK(afterDemotion.status == 403);
  CHECK(afterDemotion.header("idempotent-replayed").empty());
}

TEST_CASE("profile: time zone, language and notification choices, validated and stored") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const auto me = userWithRole(http, owner, "viewer");
  auto initial = http.request("GET", "/api/v1/auth/me/profile", "", {bearer(me)});
  REQUIRE(initial.status == 200);
  const auto p0 = parse(initial).at("profile").as_object();
  CHECK(str(p0, "time_zone") == "UTC");
  CHECK(str(p0, "language") == "en");
  CHECK(str(p0.at("notifications").as_object(), "cert.expiring_soon") == "on");

  auto changed = http.request(
      "PATCH", "/api/v1/auth/me/profile",
      R"({"time_zone":"Europe/Zurich","language":"de-CH","notifications":{"job.failed":"off"}})",
      {bearer(me)});
  REQUIRE_MESSAGE(changed.status == 200, changed.body);
  const auto p1 = parse(changed).at("profile").as_object();
  CHECK(str(p1, "time_zone") == "Europe/Zurich");
  CHECK(str(p1, "language") == "de-CH");
  CHECK(str(p1.at("notifications").as_object(), "job.failed") == "off");
  CHECK(str(p1.at("notifications").as_object(), "cert.renewal_failed") == "on");

  for (const auto& [body, status] : std::vector<std::pair<std::string, long>>{
           {R"({"time_zone":"Mars/Olympus_Mons"})", 422},
           {R"({"time_zone":"../../etc/passwd"})", 422},
           {R"({"language":"english please"})", 422},
           {R"({"notifications":{"cert.exploded":"on"}})", 422},
           {R"({"notifications":{"job.failed":"sometimes"}})", 422},
           {R"({"notifications":["job.failed"]})", 400},
           {R"({"time_zone":7})", 400},
           {R"({"language":"en"})", 200},  // and a valid change still works afterwards
       }) {
    CAPTURE(body);
    CHECK(http.request("PATCH", "/api/v1/auth/me/profile", body, {bearer(me)}).status == status);
  }
  auto after = http.request("GET", "/api/v1/auth/me/profile", "", {bearer(me)});
  const auto p2 = parse(after).at("profile").as_object();
  CHECK(str(p2, "time_zone") == "Europe/Zurich");  // the refused changes changed nothing
  CHECK(str(p2, "language") == "en");
  CHECK(str(p2.at("notifications").as_object(), "job.failed") == "off");
  // Another user's profile is untouched.
  auto owners = http.request("GET", "/api/v1/auth/me/profile", "", {bearer(owner)});
  CHECK(str(parse(owners).at("profile").as_object(), "time_zone") == "UTC");
}
