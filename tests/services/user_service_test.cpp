// UserService in process: a user's record is changed by several paths (an admin's update, the
// user's own profile, logout); none of them may write back a stale copy over another's change.
#include <doctest/doctest.h>

#include <functional>

#include "domain/services/user_service.hpp"
#include "services/service_fixture.hpp"
#include "testing/fakes.hpp"

using namespace certsteward;
using namespace certsteward::domain;

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
