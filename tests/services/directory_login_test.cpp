// DirectoryLogin and AuthService's directory path in process, over the memory store and the
// shared FakeDirectory: the first login creates the user with auth_source ldap and the mapped
// role (the highest wins), group changes apply at the next login, users in no mapped group get
// the default role or are refused, a locally disabled directory user or a local account of the
// same name is refused, an unreachable directory is 503 for directory users while local users
// still log in, TOTP applies to directory users, their password cannot be changed here, and the
// connection test reports its steps without creating anyone.
#include <doctest/doctest.h>

#include <certsteward/adapters/store/codec/settings_documents.hpp>
#include <certsteward/services/auth_service.hpp>
#include <certsteward/services/directory_login.hpp>
#include <certsteward/services/ldap_settings_service.hpp>
#include <certsteward/services/totp_codes.hpp>
#include <certsteward/services/user_service.hpp>
#include <certsteward/testing/fake_directory.hpp>
#include <certsteward/testing/fakes.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

constexpr const char* kAdmins = "cn=cert-admins,ou=groups,dc=example,dc=test";
constexpr const char* kOperators = "cn=cert-operators,ou=groups,dc=example,dc=test";

struct DirectoryFixture : testing::ServiceFixture {
  testing::FakeDirectory directory;
  testing::FakePasswordHasher hasher;
  testing::FakeTokenCodec tokens;
  testing::FakeRandom random;
  testing::FakeOtpHasher otp;
  testing::FakeMac csrf{"csrf key"};
  testing::FakeTimeZones zones;
  adapters::codec::LdapSettingsDocument settingsDoc{store.settings(), clock};
  LdapSettingsService settings{{settingsDoc, secrets}, work, access, audit};
  DirectoryLogin directoryLogin{
      {settingsDoc, directory, secrets, store.users(), ids, clock}, work, access, audit};
  AuthService auth{{store.users(), store.refreshTokens(), store.rateLimits(), hasher, tokens, ids,
                    random, clock, secrets, otp, csrf},
                   AuthPolicy{},
                   work,
                   audit,
                   &directoryLogin};
  UserService users{
      {zones, store.users(), store.refreshTokens(), hasher, ids, clock}, work, access, audit};

  DirectoryFixture() {
    directory.person("alice", "alice password", {kAdmins});
    directory.person("bob", "bob password", {kOperators});
    directory.person("carol", "carol password",
                     {"CN=Cert-Operators, OU=Groups, DC=Example,DC=test",
                      "cn=cert-admins,ou=groups,dc=example,dc=test"});
    directory.person("dave", "dave password", {});
    configure([](LdapSettings&) {});
  }
  void configure(void (*change)(LdapSettings&)) {
    LdapSettings s;
    s.enabled = true;
    s.host = "ldap.example.test";
    s.base_dn = "dc=example,dc=test";
    s.bind_dn = "cn=certsteward,ou=services,dc=example,dc=test";
    s.group_base_dn = "ou=groups,dc=example,dc=test";
    s.group_mappings = {{kAdmins, OrgRole::admin}, {kOperators, OrgRole::operator_}};
    change(s);
    auto saved = settings.put(owner(), ctx(), s, std::string("service secret"));
    REQUIRE_MESSAGE(saved.ok(), saved.error().message);
  }
  Result<LoginResult> login(const std::string& name, const std::string& password,
                            const std::string& ip = "10.0.0.1") {
    return auth.login(name, password, RequestContext{ip, "req-1"});
  }
  User stored(const std::string& name) {
    auto u = store.users().getByUsername(name);
    REQUIRE_MESSAGE(u.ok(), name);
    return *u;
  }
};

}  // namespace

TEST_CASE("directory login: the first login creates the user with the highest mapped role") {
  DirectoryFixture fx;
  const struct {
    const char* user;
    OrgRole role;
  } rows[] = {
      {"alice", OrgRole::admin},
      {"bob", OrgRole::operator_},
      {"carol", OrgRole::admin},  // both groups (written differently): the higher role
      {"dave", OrgRole::viewer},  // no mapped group: the default role
  };
  for (const auto& row : rows) {
    CAPTURE(row.user);
    auto in = fx.login(row.user, std::string(row.user) + " password");
    REQUIRE_MESSAGE(in.ok(), in.error().message);
    CHECK_FALSE(in->tokens.access_token.empty());
    const User u = fx.stored(row.user);
    CHECK(u.auth_source == AuthSource::ldap);
    CHECK(u.org_role == row.role);
    CHECK(u.password_hash.empty());
    CHECK(fx.auth.authenticate(in->tokens.access_token)->user.id == u.id);
  }
  CHECK(fx.audited("user.create").size() == 4);
  CHECK(fx.directory.lastBindPassword() == "service secret");  // opened from its sealed form
  // A second login finds the same user.
  REQUIRE(fx.login("alice", "alice password").ok());
  CHECK(fx.audited("user.create").size() == 4);
}

TEST_CASE("directory login: group changes in the directory apply at the next login") {
  DirectoryFixture fx;
  REQUIRE(fx.login("bob", "bob password").ok());
  CHECK(fx.stored("bob").org_role == OrgRole::operator_);
  fx.directory.setGroups("bob", {kAdmins});
  REQUIRE(fx.login("bob", "bob password").ok());
  CHECK(fx.stored("bob").org_role == OrgRole::admin);
  fx.directory.setGroups("bob", {});
  REQUIRE(fx.login("bob", "bob password").ok());
  CHECK(fx.stored("bob").org_role == OrgRole::viewer);
  const auto updates = fx.audited("user.update");
  REQUIRE(updates.size() == 2);
  CHECK(updates[0].details == "org_role admin -> viewer (directory groups)");
}

TEST_CASE("directory login: without a mapped group, deny_without_group refuses in words") {
  DirectoryFixture fx;
  fx.configure([](LdapSettings& s) { s.default_org_role.reset(); });
  auto refused = fx.login("dave", "dave password");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::permission_denied);
  CHECK(refused.error().reason == "NO_ROLE");
  CHECK_FALSE(fx.store.users().getByUsername("dave").ok());
  CHECK(fx.login("alice", "alice password").ok());
}

TEST_CASE("directory login: every refusal is the local refusal") {
  DirectoryFixture fx;
  fx.localUser("erin", *fx.hasher.hash("erin local password"));
  const auto localWrong = fx.login("erin", "wrong", "10.0.0.9");
  REQUIRE_FALSE(localWrong.ok());

  REQUIRE(fx.login("alice", "alice password").ok());
  auto disabled = fx.stored("alice");
  disabled.disabled = true;
  REQUIRE(fx.store.users().update(disabled).ok());

  const struct {
    const char* user;
    const char* password;
  } rows[] = {
      {"bob", "wrong"},              // wrong password
      {"mallory", "bob password"},   // nobody
      {"*", "bob password"},         // a pattern is a name
      {"*)(uid=*", "bob password"},  // an injection is a name
      {"alice", "alice password"},   // locally disabled
      {"bob", ""},                   // empty password
  };
  int i = 0;
  for (const auto& row : rows) {
    CAPTURE(row.user);
    auto r = fx.login(row.user, row.password, "10.0.1." + std::to_string(++i));
    REQUIRE_FALSE(r.ok());
    CHECK(r.error() == localWrong.error());
  }
  // A directory person named like a local account never takes it over.
  fx.directory.person("erin", "erin directory password", {kAdmins});
  auto takeover = fx.login("erin", "erin directory password", "10.0.2.1");
  REQUIRE_FALSE(takeover.ok());
  CHECK(takeover.error() == localWrong.error());
  CHECK(fx.directoryLogin.login("erin", "erin directory password").error() == localWrong.error());
  CHECK(fx.stored("erin").auth_source == AuthSource::local);
  CHECK(fx.login("erin", "erin local password", "10.0.2.2").ok());
}

TEST_CASE("directory login: unreachable is 503 for directory users, local users unaffected") {
  DirectoryFixture fx;
  fx.localUser("erin", *fx.hasher.hash("erin local password"));
  auto before = fx.login("alice", "alice password");
  REQUIRE(before.ok());

  fx.directory.setReachable(false);
  const int calls = fx.directory.calls();
  auto down = fx.login("alice", "alice password");
  REQUIRE_FALSE(down.ok());
  CHECK(down.error().code == ErrorCode::unavailable);
  CHECK(down.error().reason == "DIRECTORY_UNREACHABLE");
  CHECK(down.error().message.find("unreachable") != std::string::npos);
  CHECK(down.error().message.find("ldap.example.test") == std::string::npos);  // no details
  CHECK(fx.login("erin", "erin local password").ok());
  CHECK(fx.directory.calls() == calls + 1);  // a local login never asks the directory
  // A token issued before keeps working until it expires.
  CHECK(fx.auth.authenticate(before->tokens.access_token).ok());
}

TEST_CASE("directory login: disabled settings leave directory users out, revealing no names") {
  DirectoryFixture fx;
  REQUIRE(fx.login("alice", "alice password").ok());
  fx.configure([](LdapSettings& s) { s.enabled = false; });
  const int calls = fx.directory.calls();
  auto known = fx.login("alice", "alice password");
  auto unknown = fx.login("bob", "bob password");
  REQUIRE_FALSE(known.ok());
  REQUIRE_FALSE(unknown.ok());
  CHECK(known.error().code == ErrorCode::unauthenticated);
  CHECK(known.error() == unknown.error());  // no name is revealed
  CHECK(fx.directory.calls() == calls);
}

TEST_CASE("directory login: rate limits count directory logins like local ones") {
  DirectoryFixture fx;
  const char* spellings[] = {"bob", "Bob", "BOB", "bOb", "boB"};  // one name to a directory
  for (int i = 0; i < 5; ++i) {
    CHECK(fx.login(spellings[i], "wrong", "10.0.0." + std::to_string(i)).error().code ==
          ErrorCode::unauthenticated);
  }
  auto limited = fx.login("bob", "bob password", "10.0.0.9");
  REQUIRE_FALSE(limited.ok());
  CHECK(limited.error().reason == "RATE_LIMITED");
}

TEST_CASE("directory login: TOTP applies to directory users") {
  DirectoryFixture fx;
  auto first = fx.login("bob", "bob password");
  REQUIRE(first.ok());
  const auto who = *fx.auth.authenticate(first->tokens.access_token);
  auto enrolment = fx.auth.totpSetup(who, fx.ctx());
  REQUIRE(enrolment.ok());
  const auto secret = *base32Decode(enrolment->secret);
  const auto code = [&] {
    return hotp(fx.otp, secret,
                static_cast<std::uint64_t>(unixSeconds(fx.clock.now()) / kTotpStepSeconds));
  };
  REQUIRE(fx.auth.totpEnable(who, fx.ctx(), code()).ok());
  fx.clock.advance(std::chrono::seconds{kTotpStepSeconds});
  auto second = fx.login("bob", "bob password");
  REQUIRE(second.ok());
  CHECK(second->tokens.access_token.empty());
  REQUIRE_FALSE(second->otp_session_id.empty());
  auto verified =
      fx.auth.verifyOtp(second->otp_session_id, code(), RequestContext{"10.0.0.1", "req-1"});
  REQUIRE(verified.ok());
  CHECK_FALSE(verified->tokens.access_token.empty());
}

TEST_CASE("directory login: a directory user's password cannot be changed here") {
  DirectoryFixture fx;
  REQUIRE(fx.login("bob", "bob password").ok());
  UserChanges change;
  change.password = "a new password";
  auto refused = fx.users.update(fx.owner(), fx.ctx(), fx.stored("bob").id, change);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::failed_precondition);
  CHECK(refused.error().message.find("directory") != std::string::npos);
  CHECK(fx.stored("bob").password_hash.empty());
}

TEST_CASE("directory test: the steps, and a full login that creates nobody") {
  DirectoryFixture fx;
  auto steps = fx.directoryLogin.test(fx.owner(), fx.ctx(), std::nullopt);
  REQUIRE(steps.ok());
  std::vector<std::string> names;
  for (const auto& s : *steps) {
    names.push_back(s.step);
    CHECK(s.ok);
  }
  CHECK(names == std::vector<std::string>{"connect", "tls", "bind", "search"});

  auto withLogin =
      fx.directoryLogin.test(fx.owner(), fx.ctx(), DirectoryCredentials{"carol", "carol password"});
  REQUIRE(withLogin.ok());
  REQUIRE(withLogin->size() == 5);
  CHECK(withLogin->back().step == "login");
  CHECK(withLogin->back().ok);
  CHECK(withLogin->back().message.find("org role admin") != std::string::npos);
  CHECK_FALSE(fx.store.users().getByUsername("carol").ok());

  auto wrong = fx.directoryLogin.test(fx.owner(), fx.ctx(), DirectoryCredentials{"carol", "nope"});
  REQUIRE(wrong.ok());
  CHECK_FALSE(wrong->back().ok);

  fx.directory.setReachable(false);
  auto down =
      fx.directoryLogin.test(fx.owner(), fx.ctx(), DirectoryCredentials{"carol", "carol password"});
  REQUIRE(down.ok());
  REQUIRE(down->size() == 1);
  CHECK_FALSE(down->front().ok);

  User admin;
  admin.id = "admin-1";
  admin.org_role = OrgRole::admin;
  CHECK(fx.directoryLogin.test(Principal{admin, "s"}, fx.ctx(), std::nullopt).error().code ==
        ErrorCode::permission_denied);
}

TEST_CASE("directory test: without saved settings it says what to do") {
  testing::ServiceFixture base;
  testing::FakeDirectory directory;
  adapters::codec::LdapSettingsDocument doc{base.store.settings(), base.clock};
  DirectoryLogin login{{doc, directory, base.secrets, base.store.users(), base.ids, base.clock},
                       base.work,
                       base.access,
                       base.audit};
  auto r = login.test(base.owner(), base.ctx(), std::nullopt);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::failed_precondition);
  CHECK(login.login("alice", "alice password")->has_value() == false);
  CHECK(directory.calls() == 0);
}

TEST_CASE("directory login: a new entry with an old name does not open the old account") {
  DirectoryFixture fx;
  auto first = fx.login("bob", "bob password");
  REQUIRE(first.ok());
  const auto bound = fx.stored("bob").external_subject;
  CHECK(bound.starts_with("ldap uuid-bob-"));
  // bob leaves; the directory gives his name to somebody else.
  fx.directory.person("bob", "new bob password", {kAdmins});
  auto other = fx.login("bob", "new bob password", "10.0.3.1");
  REQUIRE_FALSE(other.ok());
  CHECK(other.error().code == ErrorCode::unauthenticated);
  CHECK(fx.stored("bob").external_subject == bound);
  CHECK(fx.stored("bob").org_role == OrgRole::operator_);
}

TEST_CASE("directory test: audited, with the name tried and never the password") {
  DirectoryFixture fx;
  REQUIRE(
      fx.directoryLogin.test(fx.owner(), fx.ctx(), DirectoryCredentials{"carol", "carol password"})
          .ok());
  const auto entries = fx.audited("settings.ldap.test");
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].details == "login=carol");
}

TEST_CASE("directory login: a session is renewed only while the directory still lists the user") {
  DirectoryFixture fx;
  auto bob = fx.login("bob", "bob password");
  REQUIRE(bob.ok());
  // Renewed while listed; a group change applies at the refresh.
  fx.directory.setGroups("bob", {kAdmins});
  auto renewed = fx.auth.refresh(bob->tokens.refresh_token, "10.0.0.1");
  REQUIRE_MESSAGE(renewed.ok(), renewed.error().message);
  CHECK(fx.auth.authenticate(renewed->access_token)->user.org_role == OrgRole::admin);
  // Through an outage the session lives on.
  fx.directory.setReachable(false);
  auto during = fx.auth.refresh(renewed->refresh_token, "10.0.0.1");
  REQUIRE(during.ok());
  fx.directory.setReachable(true);
  // Removed from the directory: the next refresh ends the session.
  fx.directory.remove("bob");
  auto ended = fx.auth.refresh(during->refresh_token, "10.0.0.1");
  REQUIRE_FALSE(ended.ok());
  CHECK(ended.error().code == ErrorCode::unauthenticated);
  CHECK(ended.error().message.find("no longer lists") != std::string::npos);

  // Another entry under the same name, or no group under deny: ended too.
  auto alice = fx.login("alice", "alice password");
  REQUIRE(alice.ok());
  fx.directory.person("alice", "alice password", {kAdmins});  // a new entry, a new id
  CHECK_FALSE(fx.auth.refresh(alice->tokens.refresh_token, "10.0.0.1").ok());
  auto carol = fx.login("carol", "carol password");
  REQUIRE(carol.ok());
  fx.configure([](LdapSettings& s) { s.default_org_role.reset(); });
  fx.directory.setGroups("carol", {});
  CHECK_FALSE(fx.auth.refresh(carol->tokens.refresh_token, "10.0.0.1").ok());
}
