// AuthService in process over the memory store and the shared fakes (certsteward::testing):
// login without user enumeration and with its limits, single-use refresh tokens whose reuse
// ends the family, logout ending the session, tokens cut by a later change of the user, and the
// TOTP second step used once.
#include <doctest/doctest.h>

#include <algorithm>

#include <certsteward/services/auth_service.hpp>
#include <certsteward/services/totp_codes.hpp>
#include <certsteward/testing/fakes.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

struct AuthFixture : testing::ServiceFixture {
  testing::FakePasswordHasher hasher;
  testing::FakeTokenCodec tokens;
  testing::FakeRandom random;
  testing::FakeOtpHasher otp;
  testing::FakeMac csrf{"csrf key"};
  AuthService auth{{store.users(), store.refreshTokens(), store.rateLimits(), hasher, tokens, ids,
                    random, clock, secrets, otp, csrf},
                   AuthPolicy{},
                   work,
                   audit};
  User alice;

  AuthFixture() {
    alice.id = ids.next();
    alice.username = "alice";
    alice.password_hash = *hasher.hash("correct horse");
    alice.org_role = OrgRole::operator_;
    REQUIRE(store.users().create(alice).ok());
  }
  LoginResult login(const std::string& password = "correct horse") {
    auto r = auth.login("alice", password, RequestContext{"10.0.0.1", "req-1"});
    REQUIRE_MESSAGE(r.ok(), r.error().message);
    return *r;
  }
};

}  // namespace

TEST_CASE("auth: a wrong password and an unknown user get the same answer") {
  AuthFixture fx;
  const auto wrong = fx.auth.login("alice", "wrong horse", RequestContext{"10.0.0.1", "req-1"});
  const auto unknown =
      fx.auth.login("mallory", "correct horse", RequestContext{"10.0.0.2", "req-1"});
  REQUIRE_FALSE(wrong.ok());
  REQUIRE_FALSE(unknown.ok());
  CHECK(wrong.error() == unknown.error());
  CHECK(wrong.error().code == ErrorCode::unauthenticated);
  const auto ok = fx.login();
  CHECK_FALSE(ok.tokens.access_token.empty());
  CHECK(ok.user.id == fx.alice.id);
  CHECK(fx.auth.authenticate(ok.tokens.access_token)->user.id == fx.alice.id);
}

TEST_CASE("auth: five wrong passwords a minute per username, then rate limited") {
  AuthFixture fx;
  for (int i = 0; i < 5; ++i) {
    CHECK(fx.auth.login("alice", "wrong", RequestContext{"10.0.0." + std::to_string(i), "req-1"})
              .error()
              .code == ErrorCode::unauthenticated);
  }
  const auto limited = fx.auth.login("alice", "correct horse", RequestContext{"10.0.0.9", "req-1"});
  REQUIRE_FALSE(limited.ok());
  CHECK(limited.error().code == ErrorCode::resource_exhausted);
  fx.clock.advance(std::chrono::minutes{1});
  CHECK(fx.auth.login("alice", "correct horse", RequestContext{"10.0.0.9", "req-1"}).ok());
}

TEST_CASE("auth: a refresh token is single use, and its reuse ends the family") {
  AuthFixture fx;
  const auto first = fx.login().tokens;
  auto second = fx.auth.refresh(first.refresh_token, "10.0.0.1");
  REQUIRE(second.ok());
  CHECK(second->refresh_family == first.refresh_family);
  auto reused = fx.auth.refresh(first.refresh_token, "10.0.0.1");
  REQUIRE_FALSE(reused.ok());
  CHECK(reused.error().reason == "TOKEN_REUSE");
  // The whole family is gone: the token issued by the legitimate refresh is refused too.
  auto after = fx.auth.refresh(second->refresh_token, "10.0.0.1");
  REQUIRE_FALSE(after.ok());
  CHECK(after.error().code == ErrorCode::unauthenticated);
}

TEST_CASE("auth: logout ends the session, a later change of the user ends older tokens") {
  AuthFixture fx;
  const auto session = fx.login().tokens;
  const auto other = fx.login().tokens;
  auto who = fx.auth.authenticate(session.access_token);
  REQUIRE(who.ok());
  REQUIRE(fx.auth.logout(*who, fx.ctx(), session.refresh_token).ok());
  CHECK(fx.auth.authenticate(session.access_token).error().reason == "TOKEN_INVALID");
  CHECK_FALSE(fx.auth.refresh(session.refresh_token, "10.0.0.1").ok());
  CHECK(fx.auth.authenticate(other.access_token).ok());  // the other session goes on

  fx.clock.advance(std::chrono::seconds{1});
  auto changed = *fx.store.users().get(fx.alice.id);
  changed.tokens_valid_after = fx.clock.now();
  REQUIRE(fx.store.users().update(changed).ok());
  CHECK(fx.auth.authenticate(other.access_token).error().code == ErrorCode::unauthenticated);
}

TEST_CASE("auth: with TOTP, a login needs the second step, once per session and per code") {
  AuthFixture fx;
  const auto who = *fx.auth.authenticate(fx.login().tokens.access_token);
  auto enrolment = fx.auth.totpSetup(who, fx.ctx());
  REQUIRE(enrolment.ok());
  const auto secret = *base32Decode(enrolment->secret);
  const auto code = [&] {
    return hotp(fx.otp, secret,
                static_cast<std::uint64_t>(unixSeconds(fx.clock.now()) / kTotpStepSeconds));
  };
  CHECK(fx.auth.totpEnable(who, fx.ctx(), "000000").error().code == ErrorCode::invalid_argument);
  REQUIRE(fx.auth.totpEnable(who, fx.ctx(), code()).ok());

  fx.clock.advance(std::chrono::seconds{kTotpStepSeconds});
  const auto first = fx.login();
  CHECK(first.tokens.access_token.empty());
  REQUIRE_FALSE(first.otp_session_id.empty());
  CHECK_FALSE(
      fx.auth.verifyOtp(first.otp_session_id, "123456", RequestContext{"10.0.0.1", "req-1"}).ok());
  auto verified =
      fx.auth.verifyOtp(first.otp_session_id, code(), RequestContext{"10.0.0.1", "req-1"});
  REQUIRE(verified.ok());
  CHECK_FALSE(verified->tokens.access_token.empty());
  // The session is spent, and the code of this step is used.
  CHECK_FALSE(
      fx.auth.verifyOtp(first.otp_session_id, code(), RequestContext{"10.0.0.1", "req-1"}).ok());
  const auto second = fx.login();
  CHECK_FALSE(
      fx.auth.verifyOtp(second.otp_session_id, code(), RequestContext{"10.0.0.1", "req-1"}).ok());
}

TEST_CASE("auth: logins are audited, and a session whose entry cannot be written is not opened") {
  AuthFixture fx;
  REQUIRE_FALSE(fx.auth.login("alice", "wrong horse", fx.ctx()).ok());
  const auto failed = fx.audited("auth.login_failed");
  REQUIRE(failed.size() == 1);
  CHECK(failed[0].details == "username=alice");
  CHECK(failed[0].ip == fx.ctx().ip);
  fx.login();
  const auto logins = fx.audited("auth.login");
  REQUIRE(logins.size() == 1);
  CHECK(logins[0].actor_user_id == fx.alice.id);
  CHECK(logins[0].resource_id == fx.alice.id);
  // An external (single sign-on) session names how it was opened.
  REQUIRE(fx.auth.completeExternal(fx.alice, fx.ctx(), "oidc").ok());
  const auto opened = fx.audited("auth.login");
  CHECK(std::count_if(opened.begin(), opened.end(),
                      [](const AuditEntry& e) { return e.details == "oidc"; }) == 1);

  fx.auditLog.failing = true;
  const auto refused = fx.auth.login("alice", "correct horse", fx.ctx());
  CHECK_FALSE(refused.ok());
  CHECK_FALSE(fx.auth.completeExternal(fx.alice, fx.ctx(), "oidc").ok());
  // A failed login whose refusal cannot be audited answers with the audit's error.
  CHECK(fx.auth.login("alice", "wrong horse", fx.ctx()).error().code != ErrorCode::unauthenticated);
  fx.auditLog.failing = false;
  CHECK(fx.audited("auth.login").size() == 2);
  CHECK(fx.audited("auth.login_failed").size() == 1);
}

TEST_CASE("auth: one's own password, and every other session ends with it") {
  AuthFixture fx;
  const auto here = fx.login().tokens;
  const auto elsewhere = fx.login().tokens;
  fx.clock.advance(std::chrono::seconds{1});
  auto who = fx.auth.authenticate(here.access_token);
  REQUIRE(who.ok());
  auto listed = fx.auth.sessions(*who);
  REQUIRE(listed.ok());
  REQUIRE(listed->size() == 2);
  CHECK(std::count_if(listed->begin(), listed->end(), [](const auto& s) { return s.current; }) ==
        1);

  const struct {
    const char* name;
    const char* current;
    const char* next;
    const char* field;
  } refused[] = {
      {"a wrong current password", "wrong horse", "battery staple", "current_password"},
      {"a short new one", "correct horse", "short", "new_password"},
      {"the same again", "correct horse", "correct horse", "new_password"},
  };
  for (const auto& r : refused) {
    CAPTURE(r.name);
    auto s = fx.auth.changeOwnPassword(*who, fx.ctx(), r.current, r.next);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().references.at(0) == r.field);
  }
  CHECK(fx.auth.authenticate(elsewhere.access_token).ok());  // nothing changed yet

  auto changed = fx.auth.changeOwnPassword(*who, fx.ctx(), "correct horse", "battery staple");
  REQUIRE_MESSAGE(changed.ok(), changed.error().message);
  CHECK_FALSE(changed->tokens.access_token.empty());
  CHECK_FALSE(changed->csrf_token.empty());
  // Every earlier token is refused, this caller's too; the new session works.
  CHECK_FALSE(fx.auth.authenticate(here.access_token).ok());
  CHECK_FALSE(fx.auth.authenticate(elsewhere.access_token).ok());
  CHECK_FALSE(fx.auth.refresh(elsewhere.refresh_token, "10.0.0.1").ok());
  auto renewed = fx.auth.authenticate(changed->tokens.access_token);
  REQUIRE(renewed.ok());
  auto left = fx.auth.sessions(*renewed);
  REQUIRE(left.ok());
  REQUIRE(left->size() == 1);
  CHECK(left->front().current);
  CHECK(fx.audited("user.password_change").size() == 1);
  CHECK_FALSE(fx.auth.login("alice", "correct horse", fx.ctx()).ok());
  CHECK(fx.auth.login("alice", "battery staple", fx.ctx()).ok());

  // Five tries a minute.
  for (int i = 0; i < 5; ++i)
    (void)fx.auth.changeOwnPassword(*renewed, fx.ctx(), "wrong", "another password");
  CHECK(fx.auth.changeOwnPassword(*renewed, fx.ctx(), "battery staple", "another password")
            .error()
            .reason == "RATE_LIMITED");
}

TEST_CASE("auth: a person ends their own other session, and no one else's") {
  AuthFixture fx;
  const auto here = fx.login().tokens;
  const auto elsewhere = fx.login().tokens;
  auto who = fx.auth.authenticate(here.access_token);
  REQUIRE(who.ok());
  CHECK(fx.auth.endSession(*who, fx.ctx(), "no-such-session").error().code == ErrorCode::not_found);
  REQUIRE(fx.auth.authenticate(elsewhere.access_token).ok());
  REQUIRE(fx.auth.endSession(*who, fx.ctx(), elsewhere.refresh_family).ok());
  CHECK_FALSE(fx.auth.refresh(elsewhere.refresh_token, "10.0.0.1").ok());
  // Its access token is refused at once, not when it expires.
  CHECK(fx.auth.authenticate(elsewhere.access_token).error().reason == "TOKEN_INVALID");
  CHECK(fx.auth.authenticate(here.access_token).ok());
  CHECK(fx.auth.sessions(*who)->size() == 1);
  CHECK(fx.audited("auth.session_end").size() == 1);

  User bob;
  bob.id = fx.ids.next();
  bob.username = "bob";
  bob.password_hash = *fx.hasher.hash("bob's horse");
  REQUIRE(fx.store.users().create(bob).ok());
  auto bobs = fx.auth.login("bob", "bob's horse", fx.ctx());
  REQUIRE(bobs.ok());
  CHECK(fx.auth.endSession(*who, fx.ctx(), bobs->tokens.refresh_family).error().code ==
        ErrorCode::not_found);  // not alice's
  CHECK(fx.auth.refresh(bobs->tokens.refresh_token, "10.0.0.1").ok());
}

TEST_CASE("auth: a directory user's password is the directory's") {
  AuthFixture fx;
  auto ldapUser = *fx.store.users().get(fx.alice.id);
  ldapUser.auth_source = AuthSource::ldap;
  REQUIRE(fx.store.users().update(ldapUser).ok());
  auto refused = fx.auth.changeOwnPassword(Principal{ldapUser, "s"}, fx.ctx(), "correct horse",
                                           "battery staple");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().reason == "EXTERNAL_ACCOUNT");
}

TEST_CASE("auth: a login waiting for its second factor is not a session") {
  AuthFixture fx;
  const auto here = fx.login().tokens;
  auto user = *fx.store.users().get(fx.alice.id);
  user.totp_enabled = true;
  user.totp_secret_sealed = *fx.secrets.seal("12345678901234567890");
  REQUIRE(fx.store.users().update(user).ok());
  auto pending = fx.auth.login("alice", "correct horse", fx.ctx());
  REQUIRE(pending.ok());
  REQUIRE_FALSE(pending->otp_session_id.empty());
  auto who = fx.auth.authenticate(here.access_token);
  REQUIRE(who.ok());
  auto listed = fx.auth.sessions(*who);
  REQUIRE(listed.ok());
  CHECK(listed->size() == 1);  // the pending second step is not listed
}
