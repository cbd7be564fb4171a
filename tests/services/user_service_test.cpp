// UserService in process: who may create, change and remove whom (a table of org roles), bad
// names and passwords, the bootstrap owner; and a user's record changed by several paths (an
// admin's update, the user's own profile, logout); none of them may write back a stale copy over
// another's change.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>

#include <certsteward/services/user_service.hpp>
#include <certsteward/testing/fakes.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

// Hashes instantly, and runs `during` while "hashing" — the moment another request can change
// the same user (bcrypt takes ~0.2 s in production).
class InterleavingHasher : public ports::PasswordHasher {
 public:
  std::function<void()> during;  // run once
  mutable bool ran = false;
  Result<std::string> hash(std::string_view password) const override {
    if (during && !ran) {
      ran = true;
      during();
    }
    return "hash:" + std::string(password);
  }
  bool verify(std::string_view password, std::string_view hash) const override {
    return hash == "hash:" + std::string(password);
  }
};

}  // namespace

TEST_CASE("users: an admin's password reset and the user's profile change never undo each other") {
  testing::ServiceFixture fx;
  InterleavingHasher hasher;
  testing::FakeTimeZones zones;
  UserService users({zones, fx.store.users(), fx.store.refreshTokens(), hasher, fx.ids, fx.clock},
                    fx.work, fx.access, fx.audit);
  const auto owner = fx.owner();
  REQUIRE(fx.store.users().create(owner.user).ok());
  auto alice = users.create(owner, fx.ctx(), "alice", "first-password", OrgRole::operator_);
  REQUIRE(alice.ok());
  const Principal self{*alice, "alice-session"};

  // While the admin's new password is being hashed, Alice changes her time zone.
  hasher.ran = false;
  hasher.during = [&] {
    ProfileChanges mine;
    mine.time_zone = "Europe/Zurich";
    REQUIRE(users.updateProfile(self, fx.ctx(), mine).ok());
  };
  UserChanges reset;
  reset.password = "second-password";
  reset.disabled = true;
  REQUIRE(users.update(owner, fx.ctx(), alice->id, reset).ok());

  const auto stored = fx.store.users().get(alice->id);
  REQUIRE(stored.ok());
  CHECK(stored->time_zone == "Europe/Zurich");             // her change survived the reset
  CHECK(stored->password_hash == "hash:second-password");  // and the reset survived hers
  CHECK(stored->disabled);
  CHECK(stored->tokens_valid_after == fx.clock.now());
}

namespace {

struct UsersFixture : testing::ServiceFixture {
  testing::FakePasswordHasher hasher;
  testing::FakeTimeZones zones;
  UserService users{
      {zones, store.users(), store.refreshTokens(), hasher, ids, clock}, work, access, audit};
  Principal as(OrgRole role, const std::string& name) {
    auto u = users.createFromCli(name, "a long password", role);
    REQUIRE_MESSAGE(u.ok(), u.error().message);
    return Principal{*u, "s-" + name};
  }
};

}  // namespace

TEST_CASE("users: who may create whom, as a table of org roles") {
  UsersFixture fx;
  const struct {
    OrgRole actor;
    OrgRole created;
    bool allowed;
  } rows[] = {
      {OrgRole::owner, OrgRole::owner, true},    {OrgRole::owner, OrgRole::admin, true},
      {OrgRole::admin, OrgRole::admin, true},    {OrgRole::admin, OrgRole::viewer, true},
      {OrgRole::admin, OrgRole::owner, false},   {OrgRole::operator_, OrgRole::viewer, false},
      {OrgRole::viewer, OrgRole::viewer, false},
  };
  int n = 0;
  for (const auto& row : rows) {
    CAPTURE(nameOf(row.actor));
    CAPTURE(nameOf(row.created));
    const auto actor = fx.as(row.actor, "actor" + std::to_string(++n));
    auto made = fx.users.create(actor, fx.ctx(), "made" + std::to_string(n), "a long password",
                                row.created);
    CHECK(made.ok() == row.allowed);
    if (!row.allowed) CHECK(made.error().code == ErrorCode::permission_denied);
    if (made.ok()) CHECK(made->org_role == row.created);
  }
  const auto created = fx.audited("user.create");  // the actors' too, made from the CLI
  CHECK(std::count_if(created.begin(), created.end(),
                      [](const AuditEntry& e) { return e.details.starts_with("org_role="); }) == 4);
}

TEST_CASE("users: bad names and passwords and a taken name are refused, and nothing is stored") {
  UsersFixture fx;
  const auto owner = fx.as(OrgRole::owner, "root");
  const std::string tooLong(65, 'a');
  const struct {
    const char* name;
    const char* password;
  } rows[] = {
      {"", "a long password"}, {"Has Space", "a long password"},     {"UPPER", "a long password"},
      {"ok-name", "short"},    {tooLong.c_str(), "a long password"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    auto refused = fx.users.create(owner, fx.ctx(), row.name, row.password, OrgRole::viewer);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::invalid_argument);
  }
  REQUIRE(fx.users.create(owner, fx.ctx(), "taken", "a long password", OrgRole::viewer).ok());
  auto again = fx.users.create(owner, fx.ctx(), "taken", "a long password", OrgRole::viewer);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().code == ErrorCode::conflict);
  CHECK(*fx.store.users().count() == 2);  // root and taken
}

TEST_CASE("users: changes of others, never of oneself, and owners only by owners") {
  UsersFixture fx;
  const auto owner = fx.as(OrgRole::owner, "root");
  const auto admin = fx.as(OrgRole::admin, "admin");
  const auto other = fx.as(OrgRole::owner, "other-owner");
  const auto viewer = fx.as(OrgRole::viewer, "viewer");

  UserChanges promote;
  promote.org_role = OrgRole::owner;
  CHECK(fx.users.update(admin, fx.ctx(), viewer.user.id, promote).error().code ==
        ErrorCode::permission_denied);
  UserChanges disable;
  disable.disabled = true;
  CHECK(fx.users.update(admin, fx.ctx(), other.user.id, disable).error().code ==
        ErrorCode::permission_denied);
  CHECK(fx.users.update(admin, fx.ctx(), admin.user.id, disable).error().code ==
        ErrorCode::failed_precondition);
  UserChanges demoteSelf;
  demoteSelf.org_role = OrgRole::viewer;
  CHECK(fx.users.update(owner, fx.ctx(), owner.user.id, demoteSelf).error().code ==
        ErrorCode::failed_precondition);
  CHECK(fx.users.remove(owner, fx.ctx(), owner.user.id).error().code ==
        ErrorCode::failed_precondition);
  // One's own password goes through AuthService::changeOwnPassword, with the current one.
  UserChanges ownPassword;
  ownPassword.password = "a new long password";
  CHECK(fx.users.update(owner, fx.ctx(), owner.user.id, ownPassword).error().code ==
        ErrorCode::failed_precondition);
  CHECK(fx.users.update(owner, fx.ctx(), admin.user.id, ownPassword).ok());  // another's: fine
  CHECK(fx.users.remove(admin, fx.ctx(), other.user.id).error().code ==
        ErrorCode::permission_denied);

  // A role change ends the user's sessions at once; a removal too.
  fx.clock.advance(std::chrono::seconds{5});
  UserChanges role;
  role.org_role = OrgRole::operator_;
  auto changed = fx.users.update(admin, fx.ctx(), viewer.user.id, role);
  REQUIRE(changed.ok());
  CHECK(changed->org_role == OrgRole::operator_);
  CHECK(changed->tokens_valid_after == fx.clock.now());
  CHECK(fx.audited("user.update").front().details == "org_role=operator");
  REQUIRE(fx.users.remove(admin, fx.ctx(), viewer.user.id).ok());
  CHECK(fx.store.users().get(viewer.user.id).error().code == ErrorCode::not_found);
  CHECK(fx.audited("user.delete").size() == 1);
}

TEST_CASE("users: the bootstrap owner is made once, only into an empty store") {
  UsersFixture fx;
  auto first = fx.users.bootstrapOwner("root", "a long password");
  REQUIRE(first.ok());
  REQUIRE(first->has_value());
  CHECK((*first)->user.org_role == OrgRole::owner);
  CHECK(fx.hasher.verify("a long password", (*first)->user.password_hash));
  CHECK((*first)->generated_password.empty());
  auto second = fx.users.bootstrapOwner("root2", "a long password");
  REQUIRE(second.ok());
  CHECK_FALSE(second->has_value());
  CHECK(*fx.store.users().count() == 1);
  CHECK(fx.audited("user.bootstrap").size() == 1);
  auto cli = fx.users.createFromCli("ops", "a long password", OrgRole::operator_);
  REQUIRE(cli.ok());
  CHECK(fx.audited("user.create").front().details == "cli");
}

TEST_CASE("users: the console's password reset ends every session, local users only") {
  UsersFixture fx;
  const auto ops = fx.as(OrgRole::admin, "ops");
  fx.clock.advance(std::chrono::seconds{5});
  REQUIRE(fx.users.resetPasswordFromCli("ops", "another long password").ok());
  const auto after = *fx.store.users().get(ops.user.id);
  CHECK(fx.hasher.verify("another long password", after.password_hash));
  CHECK(after.tokens_valid_after == fx.clock.now());
  CHECK(fx.audited("user.update").front().details == "password (cli)");
  CHECK(fx.users.resetPasswordFromCli("ops", "short").error().code == ErrorCode::invalid_argument);
  CHECK(fx.users.resetPasswordFromCli("ghost", "a long password").error().code ==
        ErrorCode::not_found);
  User directory;
  directory.id = fx.ids.next();
  directory.username = "dir";
  directory.auth_source = AuthSource::ldap;
  REQUIRE(fx.store.users().create(directory).ok());
  CHECK(fx.users.resetPasswordFromCli("dir", "a long password").error().code ==
        ErrorCode::failed_precondition);
}

TEST_CASE("users: a bootstrap owner without a password gets a generated one, shown once") {
  UsersFixture fx;
  testing::FakeRandom random;
  UserService withRandom{
      {fx.zones, fx.store.users(), fx.store.refreshTokens(), fx.hasher, fx.ids, fx.clock, &random},
      fx.work,
      fx.access,
      fx.audit};
  // Without a Random port there is nothing to generate it with.
  CHECK(fx.users.bootstrapOwner("root", "").error().code == ErrorCode::invalid_argument);
  auto first = withRandom.bootstrapOwner("root", "");
  REQUIRE(first.ok());
  REQUIRE(first->has_value());
  const std::string password = (*first)->generated_password;
  CHECK(password.size() == 20);
  CHECK(password.find_first_not_of("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789") ==
        std::string::npos);
  CHECK(fx.hasher.verify(password, (*first)->user.password_hash));
}
