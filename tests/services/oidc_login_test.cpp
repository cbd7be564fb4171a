// OidcLogin and OidcSettingsService in process, over the memory store and the shared
// FakeIdentityProvider: settings checked field by field with the secret sealed and asked again
// for another provider; a person's first sign-in creates the user with auth_source oidc and the
// mapped role, the next applies group changes; a forged state, a foreign or expired login
// state, a code for another login, a local account or another subject of the same name, a
// disabled user and deny-without-group are refused in words; TOTP is the provider's.
#include <doctest/doctest.h>

#include <certsteward/adapters/store/codec/settings_documents.hpp>
#include <certsteward/services/auth_service.hpp>
#include <certsteward/services/oidc_login.hpp>
#include <certsteward/services/oidc_settings_service.hpp>
#include <certsteward/services/sso_sign_in.hpp>
#include <certsteward/testing/fake_identity_provider.hpp>
#include <certsteward/testing/fakes.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

struct OidcFixture : testing::ServiceFixture {
  testing::FakeIdentityProvider idp;
  testing::FakeRandom random;
  testing::FakePasswordHasher hasher;
  testing::FakeTokenCodec tokens;
  testing::FakeOtpHasher otp;
  testing::FakeMac csrf{"csrf key"};
  adapters::codec::OidcSettingsDocument doc{store.settings(), clock};
  OidcSettingsService settings{{doc, secrets}, work, access, audit};
  OidcLogin sso{
      {doc, idp, secrets, random, store.users(), ids, clock, store.rateLimits()}, work, audit};
  AuthService auth{{store.users(), store.refreshTokens(), store.rateLimits(), hasher, tokens, ids,
                    random, clock, secrets, otp, csrf},
                   AuthPolicy{},
                   work,
                   audit,
                   nullptr,
                   &sso};
  SsoSignIn signOn{sso, auth, audit};

  OidcFixture() {
    configure([](OidcSettings&) {});
  }
  static OidcSettings base() {
    OidcSettings s;
    s.enabled = true;
    s.issuer = "https://idp.example.test";
    s.client_id = "certsteward";
    s.redirect_uri = "https://certs.example.test/api/v1/auth/oidc/callback";
    s.group_mappings = {{"pki-admins", OrgRole::admin}, {"pki-operators", OrgRole::operator_}};
    return s;
  }
  void configure(void (*change)(OidcSettings&)) {
    auto s = base();
    change(s);
    auto saved = settings.put(owner(), ctx(), s, std::string("client secret"));
    REQUIRE_MESSAGE(saved.ok(), saved.error().message);
  }
  // The browser's round trip: start, sign in as `subject` with `claims`, back with code+state.
  Result<User> signIn(const std::string& subject,
                      std::map<std::string, std::vector<std::string>> claims) {
    auto started = sso.start(nextIp());
    REQUIRE_MESSAGE(started.ok(), started.error().message);
    const auto login = idp.lastLogin();
    const std::string code = idp.approve(login, subject, std::move(claims));
    return sso.finish(code, login.state, started->login_state, "", {nextIp(), "req"});
  }
  int addresses = 0;
  std::string nextIp() { return "10.1.0." + std::to_string(++addresses % 250); }
  static std::map<std::string, std::vector<std::string>> person(const std::string& name,
                                                                std::vector<std::string> groups) {
    return {{"preferred_username", {name}}, {"groups", std::move(groups)}};
  }
};

}  // namespace

TEST_CASE("oidc: the first sign-in creates the user with the mapped role, the next updates it") {
  OidcFixture fx;
  auto alice = fx.signIn("sub-alice", OidcFixture::person("Alice", {"staff", "pki-admins"}));
  REQUIRE_MESSAGE(alice.ok(), alice.error().message);
  CHECK(alice->username == "alice");
  CHECK(alice->auth_source == AuthSource::oidc);
  CHECK(alice->org_role == OrgRole::admin);
  CHECK(alice->external_subject == "https://idp.example.test sub-alice");
  CHECK(fx.audited("user.create").size() == 1);
  auto session = fx.auth.completeExternal(*alice, RequestContext{"10.0.0.1", "req-1"}, "oidc");
  REQUIRE(session.ok());
  CHECK(fx.auth.authenticate(session->tokens.access_token)->user.id == alice->id);

  auto again = fx.signIn("sub-alice", OidcFixture::person("alice", {"pki-operators"}));
  REQUIRE(again.ok());
  CHECK(again->id == alice->id);
  CHECK(again->org_role == OrgRole::operator_);
  CHECK(fx.audited("user.update").size() == 1);
  auto none = fx.signIn("sub-dave", OidcFixture::person("dave", {}));
  REQUIRE(none.ok());
  CHECK(none->org_role == OrgRole::viewer);
}

TEST_CASE("oidc: every forged or foreign callback is refused in words, and creates nobody") {
  OidcFixture fx;
  auto started = fx.sso.start("10.0.0.1");
  REQUIRE(started.ok());
  const auto login = fx.idp.lastLogin();
  auto other = fx.sso.start("10.0.0.1");  // a second login in flight (another tab or browser)
  REQUIRE(other.ok());
  const auto otherLogin = fx.idp.lastLogin();
  const auto code = [&](const ports::OidcLoginRequest& l) {
    return fx.idp.approve(l, "sub-mallory", OidcFixture::person("mallory", {"pki-admins"}));
  };
  struct Row {
    const char* what;
    std::string code;
    std::string state;
    std::string loginState;
    std::string providerError;
    const char* reason;
  };
  const Row rows[] = {
      {"a forged state", code(login), "forged", started->login_state, "", "SSO_STATE_MISMATCH"},
      {"no state", code(login), "", started->login_state, "", "SSO_STATE_MISMATCH"},
      {"no login cookie", code(login), login.state, "", "", "SSO_NO_LOGIN"},
      {"a forged login cookie", code(login), login.state, "v1:forged", "", "SSO_LOGIN_INVALID"},
      {"another login's cookie", code(login), login.state, other->login_state, "",
       "SSO_STATE_MISMATCH"},
      {"a code for another login", code(otherLogin), login.state, started->login_state, "",
       "SSO_PROVIDER_REFUSED"},
      {"a code never issued", "code-999", login.state, started->login_state, "",
       "SSO_PROVIDER_REFUSED"},
      // The provider's error is heard only for an answer of this sign-in...
      {"a provider error with a forged state", "", "forged", started->login_state, "access_denied",
       "SSO_STATE_MISMATCH"},
      {"a provider error without the cookie", "", login.state, "", "access_denied", "SSO_NO_LOGIN"},
      // ...and then only as a plain code.
      {"the provider's error", "", login.state, started->login_state, "Call 555-0100!",
       "SSO_PROVIDER_REFUSED"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    auto refused =
        fx.sso.finish(row.code, row.state, row.loginState, row.providerError, {"10.0.0.2", "req"});
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::unauthenticated);
    CHECK(refused.error().reason == row.reason);
    CHECK(refused.error().message.find("555") == std::string::npos);
  }
  // Ten minutes later the login is over.
  fx.clock.advance(std::chrono::minutes{11});
  auto late = fx.sso.finish(code(login), login.state, started->login_state, "", fx.ctx());
  REQUIRE_FALSE(late.ok());
  CHECK(late.error().reason == "SSO_EXPIRED");
  CHECK_FALSE(fx.store.users().getByUsername("mallory").ok());
}

TEST_CASE("oidc: an email address names a person only once the provider verified it") {
  OidcFixture fx;
  fx.configure([](OidcSettings& s) { s.username_claim = "email"; });
  auto unverified =
      fx.signIn("sub-a", {{"email", {"boss@example.test"}}, {"email_verified", {"false"}}});
  REQUIRE_FALSE(unverified.ok());
  CHECK(unverified.error().reason == "SSO_EMAIL_UNVERIFIED");
  auto silent = fx.signIn("sub-b", {{"email", {"boss@example.test"}}});
  REQUIRE_FALSE(silent.ok());
  auto verified =
      fx.signIn("sub-c", {{"email", {"Boss@Example.test"}}, {"email_verified", {"true"}}});
  REQUIRE_MESSAGE(verified.ok(), verified.error().message);
  CHECK(verified->username == "boss@example.test");
}

TEST_CASE("oidc: starts and callbacks are limited per address") {
  OidcFixture fx;
  for (std::int64_t i = 0; i < kOidcStepsPerMinute; ++i)
    REQUIRE(fx.sso.start("10.9.9.9").ok());
  auto limited = fx.sso.start("10.9.9.9");
  REQUIRE_FALSE(limited.ok());
  CHECK(limited.error().reason == "RATE_LIMITED");
  CHECK(fx.sso.finish("c", "s", "l", "", {"10.9.9.9", "r"}).error().reason == "RATE_LIMITED");
  CHECK(fx.sso.start("10.9.9.8").ok());
}

TEST_CASE("oidc: a session is renewed only while SSO allows it, with the same provider") {
  OidcFixture fx;
  auto alice = fx.signIn("sub-alice", OidcFixture::person("alice", {"pki-admins"}));
  REQUIRE(alice.ok());
  auto session = fx.auth.completeExternal(*alice, RequestContext{"10.0.0.1", "req-1"}, "oidc");
  REQUIRE(session.ok());
  auto renewed = fx.auth.refresh(session->tokens.refresh_token, "10.0.0.1");
  REQUIRE(renewed.ok());
  fx.configure([](OidcSettings& s) { s.enabled = false; });
  auto ended = fx.auth.refresh(renewed->refresh_token, "10.0.0.1");
  REQUIRE_FALSE(ended.ok());
  CHECK(ended.error().message.find("sign in again") != std::string::npos);

  fx.configure([](OidcSettings&) {});
  auto bob = fx.signIn("sub-bob", OidcFixture::person("bob", {}));
  REQUIRE(bob.ok());
  auto bobSession = fx.auth.completeExternal(*bob, RequestContext{"10.0.0.1", "req-1"}, "oidc");
  REQUIRE(bobSession.ok());
  fx.configure([](OidcSettings& s) { s.issuer = "https://other-idp.example.test"; });
  CHECK_FALSE(fx.auth.refresh(bobSession->tokens.refresh_token, "10.0.0.1").ok());
}

TEST_CASE("oidc: accounts that may not sign in this way are refused") {
  OidcFixture fx;
  const User local = fx.localUser("erin", *fx.hasher.hash("local password"));
  auto takeover = fx.signIn("sub-erin", OidcFixture::person("erin", {"pki-admins"}));
  REQUIRE_FALSE(takeover.ok());
  CHECK(takeover.error().reason == "SSO_ACCOUNT_CONFLICT");
  CHECK(fx.store.users().get(local.id)->auth_source == AuthSource::local);

  REQUIRE(fx.signIn("sub-bob", OidcFixture::person("bob", {})).ok());
  auto impostor = fx.signIn("sub-other-bob", OidcFixture::person("bob", {"pki-admins"}));
  REQUIRE_FALSE(impostor.ok());
  CHECK(impostor.error().reason == "SSO_SUBJECT_MISMATCH");

  auto bob = *fx.store.users().getByUsername("bob");
  bob.disabled = true;
  REQUIRE(fx.store.users().update(bob).ok());
  auto disabled = fx.signIn("sub-bob", OidcFixture::person("bob", {}));
  REQUIRE_FALSE(disabled.ok());
  CHECK(disabled.error().reason == "SSO_USER_DISABLED");
  CHECK_FALSE(fx.auth.completeExternal(bob, RequestContext{"10.0.0.1", "req-1"}, "oidc").ok());

  auto nameless = fx.signIn("sub-x", {{"groups", {"pki-admins"}}});
  REQUIRE_FALSE(nameless.ok());
  CHECK(nameless.error().message.find("preferred_username") != std::string::npos);

  fx.configure([](OidcSettings& s) { s.default_org_role.reset(); });
  auto denied = fx.signIn("sub-frank", OidcFixture::person("frank", {"staff"}));
  REQUIRE_FALSE(denied.ok());
  CHECK(denied.error().reason == "NO_ROLE");
}

TEST_CASE("oidc: disabled or unreachable, the start says so, and TOTP is the provider's") {
  OidcFixture fx;
  fx.idp.setReachable(false);
  auto down = fx.sso.start("10.0.0.1");
  REQUIRE_FALSE(down.ok());
  CHECK(down.error().code == ErrorCode::unavailable);
  fx.idp.setReachable(true);

  auto alice = fx.signIn("sub-alice", OidcFixture::person("alice", {"pki-admins"}));
  REQUIRE(alice.ok());
  const Principal who{*alice, "s"};
  CHECK(fx.auth.totpSetup(who, fx.ctx()).error().code == ErrorCode::failed_precondition);

  fx.configure([](OidcSettings& s) { s.enabled = false; });
  CHECK(fx.sso.start("10.0.0.1").error().code == ErrorCode::failed_precondition);
  CHECK_FALSE(fx.sso.offer()->enabled);
}

TEST_CASE("oidc settings: every broken rule is refused naming the field, the secret is sealed") {
  OidcFixture fx;
  const struct {
    const char* field;
    void (*change)(OidcSettings&);
  } rows[] = {
      {"issuer", [](OidcSettings& s) { s.issuer = "http://idp.example.test"; }},
      {"issuer", [](OidcSettings& s) { s.issuer = ""; }},
      {"client_id", [](OidcSettings& s) { s.client_id = ""; }},
      {"client_id", [](OidcSettings& s) { s.client_id = "has space"; }},
      {"redirect_uri", [](OidcSettings& s) { s.redirect_uri = "https://certs.example.test/"; }},
      {"redirect_uri",
       [](OidcSettings& s) {
         s.redirect_uri = "http://certs.example.test/api/v1/auth/oidc/callback";
       }},
      {"scopes", [](OidcSettings& s) { s.scopes = {"profile"}; }},
      {"username_claim", [](OidcSettings& s) { s.username_claim = ""; }},
      {"group_mappings",
       [](OidcSettings& s) {
         s.group_mappings = {{"", OrgRole::admin}};
       }},
      {"groups_claim", [](OidcSettings& s) { s.groups_claim = ""; }},
      {"default_org_role", [](OidcSettings& s) { s.default_org_role = OrgRole::owner; }},
      {"display_name", [](OidcSettings& s) { s.display_name = ""; }},
      {"ca_bundle", [](OidcSettings& s) { s.ca_bundle = "not PEM"; }},
      // Shaped like PEM, holding no certificate: refused as LDAP refuses it.
      {"ca_bundle",
       [](OidcSettings& s) {
         s.ca_bundle = "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n";
       }},
      {"ca_bundle",
       [](OidcSettings& s) {
         s.ca_bundle = "-----BEGIN CERTIFICATE-----\naGVsbG8=\n-----END CERTIFICATE-----\n";
       }},
  };
  for (const auto& row : rows) {
    CAPTURE(row.field);
    auto s = OidcFixture::base();
    row.change(s);
    auto refused = fx.settings.put(fx.owner(), fx.ctx(), s, std::nullopt);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().references == std::vector<std::string>{row.field});
  }
  auto stored = *fx.doc.get();
  REQUIRE(stored.has_value());
  CHECK(stored->client_secret_sealed.find("client secret") == std::string::npos);
  CHECK(*fx.secrets.open(stored->client_secret_sealed) == "client secret");
  CHECK(fx.settings.get(fx.owner())->secret_configured);
  // The secret goes only to the provider it was given for.
  auto moved = OidcFixture::base();
  moved.issuer = "https://elsewhere.example.test";
  auto refused = fx.settings.put(fx.owner(), fx.ctx(), moved, std::nullopt);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().references == std::vector<std::string>{"client_secret"});
  CHECK(fx.settings.put(fx.owner(), fx.ctx(), moved, std::string("new secret")).ok());
  User admin;
  admin.id = "admin-1";
  admin.org_role = OrgRole::admin;
  CHECK(fx.settings.get(Principal{admin, "s"}).error().code == ErrorCode::permission_denied);
}

TEST_CASE("sso sign-in: the session opens with its audit entry, a refusal is audited in words") {
  OidcFixture fx;
  auto started = fx.sso.start("10.2.0.1");
  REQUIRE(started.ok());
  auto login = fx.idp.lastLogin();
  const std::string code =
      fx.idp.approve(login, "sub-alice", OidcFixture::person("alice", {"pki-admins"}));
  auto session = fx.signOn.complete(code, login.state, started->login_state, "", fx.ctx());
  REQUIRE_MESSAGE(session.ok(), session.error().message);
  CHECK(fx.auth.authenticate(session->tokens.access_token)->user.username == "alice");
  REQUIRE(fx.audited("auth.login").size() == 1);
  CHECK(fx.audited("auth.login")[0].details == "oidc");

  // A forged state: refused, and the refusal is audited with the reason.
  started = fx.sso.start("10.2.0.2");
  REQUIRE(started.ok());
  login = fx.idp.lastLogin();
  const auto forged =
      fx.signOn.complete(fx.idp.approve(login, "sub-alice", OidcFixture::person("alice", {})),
                         "not the state", started->login_state, "", fx.ctx());
  REQUIRE_FALSE(forged.ok());
  CHECK(forged.error().code == ErrorCode::unauthenticated);
  const auto refusals = fx.audited("auth.login_failed");
  REQUIRE(refusals.size() == 1);
  CHECK(refusals[0].details.starts_with("oidc: "));

  // No session when its audit entry cannot be written; the refusal cannot be audited either.
  started = fx.sso.start("10.2.0.3");
  REQUIRE(started.ok());
  login = fx.idp.lastLogin();
  const std::string third =
      fx.idp.approve(login, "sub-alice", OidcFixture::person("alice", {"pki-admins"}));
  fx.auditLog.failing = true;
  const auto unaudited = fx.signOn.complete(third, login.state, started->login_state, "", fx.ctx());
  REQUIRE_FALSE(unaudited.ok());
  CHECK(unaudited.error().code == ErrorCode::internal);
  fx.auditLog.failing = false;
  CHECK(fx.audited("auth.login").size() == 1);
}
