// The read-through caches: BoundedCache's expiry and size cap, and the user cache's promise —
// its own writes are seen at once, other writers' within the time to live.
#include <doctest/doctest.h>

#include <certsteward/adapters/cache/caching_user_repository.hpp>
#include <certsteward/adapters/common/bounded_cache.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/testing/fake_clock.hpp>

using namespace certsteward;
using namespace std::chrono_literals;
using adapters::cache::CachingUserRepository;
using adapters::common::BoundedCache;

TEST_CASE("bounded cache: entries expire at their time and the size stays capped") {
  const domain::Timestamp t0 = domain::fromUnixSeconds(1000);
  BoundedCache<int> cache(3);
  cache.put("a", 1, t0 + 10s, t0);
  cache.put("b", 2, t0 + 1s, t0);
  CHECK(cache.find("a", t0) == 1);
  CHECK(cache.find("b", t0 + 999ms) == 2);
  CHECK_FALSE(cache.find("b", t0 + 1s).has_value());
  CHECK_FALSE(cache.find("zz", t0).has_value());
  cache.put("c", 3, t0 + 10s, t0);
  // Full: the expired "b" makes room first; "a" and "c" stay.
  cache.put("d", 4, t0 + 10s, t0 + 2s);
  CHECK(cache.size() == 3);
  CHECK(cache.find("a", t0 + 2s) == 1);
  CHECK(cache.find("d", t0 + 2s) == 4);
  // Full of live entries: it starts over rather than grow.
  cache.put("e", 5, t0 + 10s, t0 + 2s);
  CHECK(cache.size() == 1);
  CHECK(cache.find("e", t0 + 2s) == 5);
  // Replacing a key never evicts.
  cache.put("e", 6, t0 + 10s, t0 + 2s);
  CHECK(cache.find("e", t0 + 2s) == 6);
  cache.erase("e");
  CHECK_FALSE(cache.find("e", t0 + 2s).has_value());
}

TEST_CASE("user cache: own writes at once, other writers within the time to live") {
  adapters::memory::MemoryStore store;
  testing::FakeClock clock;
  CachingUserRepository users(store.users(), clock, 1s);
  domain::User alice;
  alice.id = "aaaaaaaaaaaaaaaaaaaaaaaa";
  alice.username = "alice";
  alice.org_role = domain::OrgRole::operator_;
  REQUIRE(users.create(alice).ok());
  REQUIRE(users.get(alice.id)->org_role == domain::OrgRole::operator_);

  // Another instance disables her directly in the store: seen once the entry expires.
  auto changed = alice;
  changed.disabled = true;
  REQUIRE(store.users().update(changed).ok());
  CHECK_FALSE(users.get(alice.id)->disabled);
  clock.advance(1s);
  CHECK(users.get(alice.id)->disabled);

  // Through the cache: seen at once.
  changed.disabled = false;
  changed.org_role = domain::OrgRole::admin;
  REQUIRE(users.update(changed).ok());
  CHECK(users.get(alice.id)->org_role == domain::OrgRole::admin);
  CHECK_FALSE(users.get(alice.id)->disabled);

  REQUIRE(users.remove(alice.id).ok());
  CHECK(users.get(alice.id).error().code == domain::ErrorCode::not_found);

  // Misses are not remembered: a user created elsewhere is found right away.
  domain::User bob;
  bob.id = "bbbbbbbbbbbbbbbbbbbbbbbb";
  bob.username = "bob";
  CHECK_FALSE(users.get(bob.id).ok());
  REQUIRE(store.users().create(bob).ok());
  CHECK(users.get(bob.id)->username == "bob");
  // Pass-through reads.
  CHECK(users.getByUsername("bob")->id == bob.id);
  CHECK(*users.count() == 1);
}
