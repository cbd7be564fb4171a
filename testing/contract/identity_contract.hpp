// Contract of ProjectRepository, UserRepository and MembershipRepository on every adapter.
//
// A suite header: include it from one test file of its own, after defining
// CERTSTEWARD_STORE_FACTORIES as the list of store factories to run it against
// (testing/contract/store_fixture.hpp says what a factory provides).
#pragma once

#ifndef CERTSTEWARD_STORE_FACTORIES
#error "define CERTSTEWARD_STORE_FACTORIES (the store factories) before including a contract suite"
#endif

#include <doctest/doctest.h>

#include <certsteward/testing/contract/store_fixture.hpp>

using namespace certsteward;
using namespace certsteward::domain;

TEST_CASE_TEMPLATE("projects: names are unique and lists can be limited to some ids", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->projects();
  Project a{fx.ids.next(), "payments", "card processing", fx.now(), fx.now()};
  Project b{fx.ids.next(), "web", "", fx.now(), fx.now()};
  REQUIRE(repo.create(a).ok());
  REQUIRE(repo.create(b).ok());
  Project dup{fx.ids.next(), "payments", "", fx.now(), fx.now()};
  CHECK(repo.create(dup).error().code == ErrorCode::conflict);
  CHECK(repo.get(a.id)->description == "card processing");
  CHECK(repo.get(fx.ids.next()).error().code == ErrorCode::not_found);
  CHECK(repo.list(fx.page())->total == 2);
  const auto only = repo.list(fx.page(), std::vector<Id>{b.id});
  REQUIRE(only->items.size() == 1);
  CHECK(only->items[0].name == "web");
  CHECK(repo.list(fx.page(), std::vector<Id>{})->total == 0);
  b.name = "payments";
  CHECK(repo.update(b).error().code == ErrorCode::conflict);
  b.name = "website";
  REQUIRE(repo.update(b).ok());
  CHECK(repo.get(b.id)->name == "website");
  REQUIRE(repo.remove(a.id).ok());
  CHECK(repo.remove(a.id).error().code == ErrorCode::not_found);
  CHECK(repo.list(fx.page())->total == 1);
}

TEST_CASE_TEMPLATE("users: usernames are unique and looked up exactly", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->users();
  CHECK(*repo.count() == 0);
  User alice;
  alice.id = fx.ids.next();
  alice.username = "alice";
  alice.password_hash = "$2b$10$abc";
  alice.org_role = OrgRole::owner;
  alice.totp_secret_sealed = "v1:seed";
  User bob = alice;
  bob.id = fx.ids.next();
  bob.username = "bob";
  bob.org_role = OrgRole::viewer;
  bob.auth_source = AuthSource::ldap;
  REQUIRE(repo.create(alice).ok());
  REQUIRE(repo.create(bob).ok());
  User dup = bob;
  dup.id = fx.ids.next();
  CHECK(repo.create(dup).error().code == ErrorCode::conflict);
  CHECK(*repo.count() == 2);
  const auto found = repo.getByUsername("bob");
  REQUIRE(found.ok());
  CHECK(found->id == bob.id);
  CHECK(found->auth_source == AuthSource::ldap);
  CHECK(repo.getByUsername("Bob").error().code == ErrorCode::not_found);
  CHECK(repo.get(alice.id)->totp_secret_sealed == "v1:seed");
  bob.disabled = true;
  bob.org_role = OrgRole::operator_;
  REQUIRE(repo.update(bob).ok());
  CHECK(repo.get(bob.id)->disabled);
  CHECK(repo.get(bob.id)->org_role == OrgRole::operator_);
  bob.username = "alice";
  CHECK(repo.update(bob).error().code == ErrorCode::conflict);
  CHECK(repo.list(fx.page(1, 1))->total == 2);
  REQUIRE(repo.remove(alice.id).ok());
  CHECK(repo.get(alice.id).error().code == ErrorCode::not_found);
}

TEST_CASE_TEMPLATE("memberships: put is an upsert, listed per project and per user", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->memberships();
  REQUIRE(repo.put({"p1", "u1", ProjectRole::viewer, fx.now()}).ok());
  REQUIRE(repo.put({"p1", "u2", ProjectRole::admin, fx.now()}).ok());
  REQUIRE(repo.put({"p2", "u1", ProjectRole::operator_, fx.now()}).ok());
  REQUIRE(repo.put({"p1", "u1", ProjectRole::operator_, fx.now()}).ok());
  CHECK(repo.get("p1", "u1")->role == ProjectRole::operator_);
  CHECK(repo.get("p3", "u1").error().code == ErrorCode::not_found);
  CHECK(repo.listForProject("p1", fx.page())->total == 2);
  CHECK(repo.listForUser("u1")->size() == 2);
  REQUIRE(repo.remove("p1", "u1").ok());
  CHECK(repo.remove("p1", "u1").error().code == ErrorCode::not_found);
  CHECK(repo.listForUser("u1")->size() == 1);
}

TEST_CASE_TEMPLATE("users: every field survives the store, profile and session fields included", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  User u;
  u.id = fx.ids.next();
  u.username = "roundtrip";
  u.password_hash = "$2b$10$hash";
  u.org_role = OrgRole::operator_;
  u.totp_enabled = true;
  u.totp_secret_sealed = "v1:sealed";
  u.created_at = u.updated_at = fx.now();
  u.tokens_valid_after = fx.now() + std::chrono::milliseconds{1234};
  u.ended_sessions = {EndedSession{"family-1", fx.now() + std::chrono::minutes{15}}};
  u.time_zone = "Europe/Zurich";
  u.language = "de-CH";
  u.notification_preferences = {{"job.failed", "off"}};
  REQUIRE(fx.store->users().create(u).ok());
  auto got = fx.store->users().get(u.id);
  REQUIRE(got.ok());
  CHECK(got->tokens_valid_after == u.tokens_valid_after);
  REQUIRE(got->ended_sessions.size() == 1);
  CHECK(got->ended_sessions[0].family_id == "family-1");
  CHECK(got->ended_sessions[0].until == u.ended_sessions[0].until);
  CHECK(got->time_zone == "Europe/Zurich");
  CHECK(got->language == "de-CH");
  CHECK(got->notification_preferences == u.notification_preferences);
  CHECK(got->totp_secret_sealed == "v1:sealed");
}
