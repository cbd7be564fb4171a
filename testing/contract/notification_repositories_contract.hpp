// Contract of NotificationDeliveryRepository (the outbox) and NotificationStateRepository on
// every adapter, the stored form of notification rules, and the codec's reading of rule
// documents written before the rules had their delivery settings.
//
// A suite header: include it from one test file of its own, after defining
// CERTSTEWARD_STORE_FACTORIES as the list of store factories to run it against
// (testing/contract/store_fixture.hpp says what a factory provides).
#pragma once

#ifndef CERTSTEWARD_STORE_FACTORIES
#error "define CERTSTEWARD_STORE_FACTORIES (the store factories) before including a contract suite"
#endif

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include <certsteward/testing/contract/store_fixture.hpp>

using namespace certsteward;
using namespace certsteward::domain;

namespace {

// A delivery with every field set to something other than its default.
template <class F>
NotificationDelivery fullDelivery(testing::StoreFixture<F>& fx, const Id& project) {
  NotificationDelivery d;
  d.id = fx.ids.next();
  d.project_id = project;
  d.channel_id = "chan-1";
  d.rule_id = "rule-1";
  d.event_id = "event-1";
  d.event = "cert.expiring_soon";
  d.resource_id = "cert-1";
  d.recovery = true;
  // Dotted names are how templates name variables; every store must keep them as they are.
  d.variables = {{"event", "cert.expiring_soon"},
                 {"certificate.common_name", "www.example.test"},
                 {"project.name", "Web"},
                 {"days_left", "7"},
                 {"message", "expires in 7 days: \"www\" <ok> & done"}};
  d.items = {"item-a", "item-b"};
  d.status = DeliveryStatus::dead;
  d.attempts = 5;
  d.last_error = "connection refused";
  d.job_id = "job-1";
  d.digest_id = "digest-1";
  d.created_at = fx.now();
  d.updated_at = fx.now() + std::chrono::milliseconds(1500);
  d.sent_at = fx.now() + std::chrono::milliseconds(2750);
  return d;
}

// A minimal delivery on `channel` for `rule` with `status`.
template <class F>
NotificationDelivery delivery(testing::StoreFixture<F>& fx, const Id& id, const Id& project,
                              const Id& channel, const Id& rule, DeliveryStatus status) {
  NotificationDelivery d;
  d.id = id;
  d.project_id = project;
  d.channel_id = channel;
  d.rule_id = rule;
  d.event = "job.failed";
  d.status = status;
  d.created_at = d.updated_at = fx.now();
  return d;
}

void checkSameDelivery(const NotificationDelivery& got, const NotificationDelivery& want) {
  CHECK(got.id == want.id);
  CHECK(got.project_id == want.project_id);
  CHECK(got.channel_id == want.channel_id);
  CHECK(got.rule_id == want.rule_id);
  CHECK(got.event_id == want.event_id);
  CHECK(got.event == want.event);
  CHECK(got.resource_id == want.resource_id);
  CHECK(got.recovery == want.recovery);
  CHECK(got.variables == want.variables);
  CHECK(got.items == want.items);
  CHECK(got.status == want.status);
  CHECK(got.attempts == want.attempts);
  CHECK(got.last_error == want.last_error);
  CHECK(got.job_id == want.job_id);
  CHECK(got.digest_id == want.digest_id);
  CHECK(got.created_at == want.created_at);
  CHECK(got.updated_at == want.updated_at);
  CHECK(got.sent_at == want.sent_at);
}

void checkSameState(const NotificationState& got, const NotificationState& want) {
  CHECK(got.id == want.id);
  CHECK(got.project_id == want.project_id);
  CHECK(got.rule_id == want.rule_id);
  CHECK(got.subject == want.subject);
  CHECK(got.failing == want.failing);
  CHECK(got.threshold_days == want.threshold_days);
  CHECK(got.expires_at == want.expires_at);
  CHECK(got.updated_at == want.updated_at);
}

void checkSameRule(const NotificationRule& got, const NotificationRule& want) {
  CHECK(got.id == want.id);
  CHECK(got.project_id == want.project_id);
  CHECK(got.name == want.name);
  CHECK(got.events == want.events);
  CHECK(got.channel_ids == want.channel_ids);
  CHECK(got.enabled == want.enabled);
  CHECK(got.created_at == want.created_at);
  CHECK(got.updated_at == want.updated_at);
  CHECK(got.certificate_pattern == want.certificate_pattern);
  CHECK(got.only_on_change == want.only_on_change);
  CHECK(got.thresholds_days == want.thresholds_days);
  CHECK(got.mode == want.mode);
  CHECK(got.digest_time == want.digest_time);
  CHECK(got.last_digest_at == want.last_digest_at);
}

std::vector<Id> idsOf(const std::vector<NotificationDelivery>& deliveries) {
  std::vector<Id> out;
  for (const auto& d : deliveries)
    out.push_back(d.id);
  return out;
}

}  // namespace

TEST_CASE_TEMPLATE("notification deliveries: every field round-trips, tenancy and ids hold", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->notificationDeliveries();
  const auto full = fullDelivery(fx, "p1");
  REQUIRE(repo.create(full).ok());
  CHECK(repo.create(full).error().code == ErrorCode::conflict);

  const auto got = repo.get("p1", full.id);
  REQUIRE(got.ok());
  checkSameDelivery(*got, full);
  CHECK(repo.get("p2", full.id).error().code == ErrorCode::not_found);

  // Defaults stay defaults: no sent_at, no items, pending.
  auto plain = delivery(fx, fx.ids.next(), "p1", "chan-1", "", DeliveryStatus::pending);
  REQUIRE(repo.create(plain).ok());
  const auto gotPlain = repo.get("p1", plain.id);
  REQUIRE(gotPlain.ok());
  checkSameDelivery(*gotPlain, plain);
  CHECK_FALSE(gotPlain->sent_at.has_value());

  // An update replaces every field; another project cannot update or remove it.
  auto sent = plain;
  sent.status = DeliveryStatus::sent;
  sent.attempts = 2;
  sent.sent_at = fx.now() + std::chrono::seconds(30);
  sent.variables = {{"event", "test"}};
  sent.items = {"x"};
  REQUIRE(repo.update(sent).ok());
  checkSameDelivery(*repo.get("p1", plain.id), sent);
  auto foreign = sent;
  foreign.project_id = "p2";
  CHECK(repo.update(foreign).error().code == ErrorCode::not_found);
  CHECK(repo.remove("p2", plain.id).error().code == ErrorCode::not_found);

  const auto listed = repo.list("p1", fx.page());
  REQUIRE(listed.ok());
  CHECK(listed->total == 2);
  CHECK(repo.list("p2", fx.page())->total == 0);

  REQUIRE(repo.remove("p1", plain.id).ok());
  CHECK(repo.get("p1", plain.id).error().code == ErrorCode::not_found);
  CHECK(repo.remove("p1", plain.id).error().code == ErrorCode::not_found);
  CHECK(repo.get("p1", full.id).ok());
}

TEST_CASE_TEMPLATE("notification deliveries: a channel's are listed newest first, paged", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->notificationDeliveries();
  std::vector<Id> ids;
  for (int i = 0; i < 5; ++i)
    ids.push_back(fx.ids.next());  // ascending
  // Created out of id order: the order comes from the ids, not from insertion.
  for (const int i : {2, 0, 4, 1, 3}) {
    REQUIRE(repo.create(delivery(fx, ids[static_cast<std::size_t>(i)], "p1", "ch1", "r1",
                                 DeliveryStatus::pending))
                .ok());
  }
  const Id otherChannel1 = fx.ids.next();
  const Id otherChannel2 = fx.ids.next();
  const Id otherProject = fx.ids.next();
  REQUIRE(repo.create(delivery(fx, otherChannel1, "p1", "ch2", "r1", DeliveryStatus::sent)).ok());
  REQUIRE(repo.create(delivery(fx, otherChannel2, "p1", "ch2", "r1", DeliveryStatus::held)).ok());
  REQUIRE(repo.create(delivery(fx, otherProject, "p2", "ch1", "r1", DeliveryStatus::pending)).ok());

  const auto first = repo.listForChannel("p1", "ch1", fx.page(1, 2));
  REQUIRE(first.ok());
  CHECK(first->total == 5);
  CHECK(first->page == 1);
  CHECK(first->page_size == 2);
  CHECK(idsOf(first->items) == std::vector<Id>{ids[4], ids[3]});
  const auto second = repo.listForChannel("p1", "ch1", fx.page(2, 2));
  REQUIRE(second.ok());
  CHECK(second->total == 5);
  CHECK(idsOf(second->items) == std::vector<Id>{ids[2], ids[1]});
  const auto last = repo.listForChannel("p1", "ch1", fx.page(3, 2));
  REQUIRE(last.ok());
  CHECK(idsOf(last->items) == std::vector<Id>{ids[0]});
  const auto beyond = repo.listForChannel("p1", "ch1", fx.page(4, 2));
  REQUIRE(beyond.ok());
  CHECK(beyond->items.empty());
  CHECK(beyond->total == 5);

  const auto other = repo.listForChannel("p1", "ch2", fx.page());
  REQUIRE(other.ok());
  CHECK(other->total == 2);
  CHECK(idsOf(other->items) == std::vector<Id>{otherChannel2, otherChannel1});
  const auto foreign = repo.listForChannel("p2", "ch1", fx.page());
  REQUIRE(foreign.ok());
  CHECK(foreign->total == 1);
  CHECK(idsOf(foreign->items) == std::vector<Id>{otherProject});
  const auto none = repo.listForChannel("p1", "ch3", fx.page());
  REQUIRE(none.ok());
  CHECK(none->total == 0);
  CHECK(none->items.empty());

  // A delivery removed leaves its channel's list.
  REQUIRE(repo.remove("p1", ids[4]).ok());
  const auto after = repo.listForChannel("p1", "ch1", fx.page(1, 2));
  REQUIRE(after.ok());
  CHECK(after->total == 4);
  CHECK(idsOf(after->items) == std::vector<Id>{ids[3], ids[2]});
}

TEST_CASE_TEMPLATE("notification deliveries: a rule's held ones, oldest first, at most limit", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->notificationDeliveries();
  std::vector<Id> ids;
  for (int i = 0; i < 8; ++i)
    ids.push_back(fx.ids.next());
  struct Row {
    std::size_t index;
    const char* project;
    const char* channel;
    const char* rule;
    DeliveryStatus status;
  };
  // Held for r1 in p1: 1, 3, 6 (created out of order, on two channels).
  for (const Row& row : {Row{6, "p1", "ch2", "r1", DeliveryStatus::held},
                         Row{0, "p1", "ch1", "r1", DeliveryStatus::pending},
                         Row{3, "p1", "ch1", "r1", DeliveryStatus::held},
                         Row{2, "p1", "ch1", "r1", DeliveryStatus::digested},
                         Row{1, "p1", "ch1", "r1", DeliveryStatus::held},
                         Row{4, "p1", "ch1", "r2", DeliveryStatus::held},
                         Row{5, "p2", "ch1", "r1", DeliveryStatus::held},
                         Row{7, "p1", "ch1", "r1", DeliveryStatus::sent}}) {
    REQUIRE(
        repo.create(delivery(fx, ids[row.index], row.project, row.channel, row.rule, row.status))
            .ok());
  }

  const auto all = repo.heldForRule("p1", "r1", 10);
  REQUIRE(all.ok());
  CHECK(idsOf(*all) == std::vector<Id>{ids[1], ids[3], ids[6]});
  for (const auto& d : *all)
    CHECK(d.status == DeliveryStatus::held);
  const auto two = repo.heldForRule("p1", "r1", 2);
  REQUIRE(two.ok());
  CHECK(idsOf(*two) == std::vector<Id>{ids[1], ids[3]});
  const auto zero = repo.heldForRule("p1", "r1", 0);
  REQUIRE(zero.ok());
  CHECK(zero->empty());
  const auto otherRule = repo.heldForRule("p1", "r2", 10);
  REQUIRE(otherRule.ok());
  CHECK(idsOf(*otherRule) == std::vector<Id>{ids[4]});
  const auto otherProject = repo.heldForRule("p2", "r1", 10);
  REQUIRE(otherProject.ok());
  CHECK(idsOf(*otherProject) == std::vector<Id>{ids[5]});
  const auto unknown = repo.heldForRule("p1", "r3", 10);
  REQUIRE(unknown.ok());
  CHECK(unknown->empty());

  // Digested, a delivery leaves the held ones; held again (or newly held), it joins them.
  auto digested = *repo.get("p1", ids[1]);
  digested.status = DeliveryStatus::digested;
  digested.digest_id = ids[7];
  REQUIRE(repo.update(digested).ok());
  auto nowHeld = *repo.get("p1", ids[0]);
  nowHeld.status = DeliveryStatus::held;
  REQUIRE(repo.update(nowHeld).ok());
  const auto afterUpdates = repo.heldForRule("p1", "r1", 10);
  REQUIRE(afterUpdates.ok());
  CHECK(idsOf(*afterUpdates) == std::vector<Id>{ids[0], ids[3], ids[6]});

  REQUIRE(repo.remove("p1", ids[3]).ok());
  CHECK(idsOf(*repo.heldForRule("p1", "r1", 10)) == std::vector<Id>{ids[0], ids[6]});
}

TEST_CASE_TEMPLATE("notification states: found by rule and subject, replaced by update", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->notificationStates();
  const auto none = repo.find("p1", "r1", "cert-1");
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());

  NotificationState s;
  s.id = fx.ids.next();
  s.project_id = "p1";
  s.rule_id = "r1";
  s.subject = "cert-1";
  s.failing = {EventKind::cert_renewal_failed, EventKind::job_failed};
  s.threshold_days = 7;
  s.expires_at = "2031-01-02T03:04:05Z";
  s.updated_at = fx.now() + std::chrono::milliseconds(42);
  REQUIRE(repo.create(s).ok());
  CHECK(repo.create(s).error().code == ErrorCode::conflict);
  // Same rule, another subject (with a '/' in it); another rule, same subject.
  NotificationState neighbour = s;
  neighbour.id = fx.ids.next();
  neighbour.subject = "cert-1/x";
  neighbour.failing = {};
  neighbour.threshold_days = 30;
  REQUIRE(repo.create(neighbour).ok());
  NotificationState otherRule = s;
  otherRule.id = fx.ids.next();
  otherRule.rule_id = "r2";
  otherRule.threshold_days = std::nullopt;
  REQUIRE(repo.create(otherRule).ok());

  const auto found = repo.find("p1", "r1", "cert-1");
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  checkSameState(**found, s);
  const auto foundNeighbour = repo.find("p1", "r1", "cert-1/x");
  REQUIRE(foundNeighbour.ok());
  REQUIRE(foundNeighbour->has_value());
  checkSameState(**foundNeighbour, neighbour);
  const auto foundOther = repo.find("p1", "r2", "cert-1");
  REQUIRE(foundOther.ok());
  REQUIRE(foundOther->has_value());
  checkSameState(**foundOther, otherRule);
  CHECK_FALSE(repo.find("p1", "r1", "cert-2")->has_value());
  CHECK_FALSE(repo.find("p1", "r3", "cert-1")->has_value());
  CHECK_FALSE(repo.find("p2", "r1", "cert-1")->has_value());
  CHECK(repo.get("p2", s.id).error().code == ErrorCode::not_found);

  auto replaced = s;
  replaced.failing = {};
  replaced.threshold_days = std::nullopt;
  replaced.expires_at = "2032-01-01T00:00:00Z";
  replaced.updated_at = fx.now() + std::chrono::seconds(5);
  REQUIRE(repo.update(replaced).ok());
  const auto afterUpdate = repo.find("p1", "r1", "cert-1");
  REQUIRE(afterUpdate.ok());
  REQUIRE(afterUpdate->has_value());
  checkSameState(**afterUpdate, replaced);
  auto moved = replaced;
  moved.project_id = "p2";
  CHECK(repo.update(moved).error().code == ErrorCode::not_found);

  REQUIRE(repo.remove("p1", s.id).ok());
  CHECK_FALSE(repo.find("p1", "r1", "cert-1")->has_value());
  CHECK(repo.find("p1", "r1", "cert-1/x")->has_value());
}

TEST_CASE_TEMPLATE("notification rules: the delivery settings round-trip", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->notificationRules();
  NotificationRule r;
  r.id = fx.ids.next();
  r.project_id = "p1";
  r.name = "digest";
  r.events = {EventKind::cert_expiring_soon, EventKind::cert_renewed};
  r.channel_ids = {"ch1", "ch2"};
  r.enabled = false;
  r.created_at = fx.now();
  r.updated_at = fx.now() + std::chrono::milliseconds(9);
  r.certificate_pattern = "*.Example.test";
  r.only_on_change = true;
  r.thresholds_days = {60, 10, 2};
  r.mode = kRuleModeDigest;
  r.digest_time = "17:45";
  r.last_digest_at = fx.now() + std::chrono::hours(3);
  REQUIRE(repo.create(r).ok());
  const auto got = repo.get("p1", r.id);
  REQUIRE(got.ok());
  checkSameRule(*got, r);

  // Defaults stay defaults (no digest yet); an update records one and clears the thresholds.
  NotificationRule plain;
  plain.id = fx.ids.next();
  plain.project_id = "p1";
  plain.name = "plain";
  plain.events = {EventKind::job_failed};
  REQUIRE(repo.create(plain).ok());
  const auto gotPlain = repo.get("p1", plain.id);
  REQUIRE(gotPlain.ok());
  checkSameRule(*gotPlain, plain);
  CHECK(gotPlain->thresholds_days == std::vector<int>{30, 14, 7, 3, 1});
  CHECK_FALSE(gotPlain->last_digest_at.has_value());
  auto digested = plain;
  digested.last_digest_at = fx.now() + std::chrono::minutes(1);
  digested.thresholds_days = {};
  REQUIRE(repo.update(digested).ok());
  checkSameRule(*repo.get("p1", plain.id), digested);
}

#if !defined(CERTSTEWARD_CONTRACT_MONGO)
// The MongoDB stand-in has no transactions (the transactions suite runs on a real server only).
TEST_CASE_TEMPLATE("notification deliveries and states take part in transactions", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& deliveries = fx.store->notificationDeliveries();
  auto& states = fx.store->notificationStates();
  auto kept = delivery(fx, fx.ids.next(), "p1", "ch1", "r1", DeliveryStatus::held);
  REQUIRE(deliveries.create(kept).ok());
  NotificationState state;
  state.id = fx.ids.next();
  state.project_id = "p1";
  state.rule_id = "r1";
  state.subject = "cert-1";
  state.threshold_days = 14;
  REQUIRE(states.create(state).ok());

  const Id added = fx.ids.next();
  const Status failed = fx.store->transactions().run([&]() -> Status {
    if (auto s = deliveries.create(delivery(fx, added, "p1", "ch1", "r1", DeliveryStatus::held));
        !s)
      return s;
    auto digested = kept;
    digested.status = DeliveryStatus::digested;
    if (auto s = deliveries.update(digested); !s) return s;
    auto changed = state;
    changed.threshold_days = 7;
    if (auto s = states.update(changed); !s) return s;
    return makeError(ErrorCode::failed_precondition, "the body fails");
  });
  CHECK(failed.error().code == ErrorCode::failed_precondition);
  CHECK(deliveries.get("p1", added).error().code == ErrorCode::not_found);
  CHECK(deliveries.get("p1", kept.id)->status == DeliveryStatus::held);
  CHECK(idsOf(*deliveries.heldForRule("p1", "r1", 10)) == std::vector<Id>{kept.id});
  CHECK(states.find("p1", "r1", "cert-1")->value().threshold_days == 14);

  const Status committed = fx.store->transactions().run([&]() -> Status {
    auto digested = kept;
    digested.status = DeliveryStatus::digested;
    return deliveries.update(digested);
  });
  REQUIRE(committed.ok());
  CHECK(deliveries.heldForRule("p1", "r1", 10)->empty());
}

#endif
