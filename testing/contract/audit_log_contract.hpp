// Contract of AuditLog on every adapter: serialized appends, chain pages that verify, and
// tampering found by verification.
//
// A suite header: include it from one test file of its own, after defining
// CERTSTEWARD_STORE_FACTORIES as the list of store factories to run it against
// (testing/contract/store_fixture.hpp says what a factory provides).
#pragma once

#ifndef CERTSTEWARD_STORE_FACTORIES
#error "define CERTSTEWARD_STORE_FACTORIES (the store factories) before including a contract suite"
#endif

#include <doctest/doctest.h>

#include <thread>

#include <certsteward/services/audit_sealer.hpp>
#include <certsteward/testing/contract/store_fixture.hpp>
#include <certsteward/testing/fakes.hpp>

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;
using namespace std::chrono_literals;

namespace {

AuditEntry draft(const Id& id, Timestamp at, std::string action, std::string actor = "u1") {
  AuditEntry e;
  e.id = id;
  e.timestamp = at;
  e.action = std::move(action);
  e.resource_type = "certificate";
  e.resource_id = "c1";
  e.project_id = "p1";
  e.actor_user_id = std::move(actor);
  e.actor_username = "alice";
  e.ip = "127.0.0.1";
  e.request_id = "req";
  return e;
}

// Verifies the whole chain page by page, as the verify endpoint does.
AuditVerification verifyAll(ports::AuditLog& log, const AuditSealer& sealer, std::int64_t limit) {
  AuditVerification total;
  std::optional<Timestamp> since;
  for (int guard = 0; guard < 10000; ++guard) {
    const auto page = log.chainPage(since, limit);
    REQUIRE(page.ok());
    const auto v =
        verifyAuditPage(sealer, page->predecessor_checksum, page->entries, page->next_since);
    total.verified += v.verified;
    total.intact = total.intact && v.intact;
    total.breaks.insert(total.breaks.end(), v.breaks.begin(), v.breaks.end());
    if (!v.next_since) break;
    since = v.next_since;
  }
  return total;
}

}  // namespace

TEST_CASE_TEMPLATE("audit log: appends chain, pages verify, lists filter", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  testing::FakeMac mac("audit key");
  AuditSealer sealer(mac);
  auto& log = fx.store->auditLog();
  std::vector<AuditEntry> stored;
  for (int i = 0; i < 7; ++i) {
    fx.clock.advance(1s);
    auto e =
        log.append(draft(fx.ids.next(), fx.now(),
                         i % 2 ? "certificate.renew" : "certificate.create", i < 5 ? "u1" : "u2"),
                   sealer);
    REQUIRE(e.ok());
    CHECK(e->sequence == i + 1);
    CHECK(e->checksum.size() == 64);
    stored.push_back(*e);
  }
  CHECK(stored[1].checksum == sealer.checksum(stored[0].checksum, stored[1]));
  CHECK(log.append(draft(stored[0].id, fx.now(), "x"), sealer).error().code == ErrorCode::conflict);

  const auto got = log.get(stored[3].id);
  REQUIRE(got.ok());
  CHECK(got->checksum == stored[3].checksum);
  CHECK(got->actor_username == "alice");
  CHECK(got->project_id == std::optional<Id>("p1"));
  CHECK(log.get(fx.ids.next()).error().code == ErrorCode::not_found);

  const auto v = verifyAll(log, sealer, 3);
  CHECK(v.verified == 7);
  CHECK(v.intact);

  const auto fromMiddle = log.chainPage(stored[4].timestamp, 100);
  REQUIRE(fromMiddle.ok());
  REQUIRE(fromMiddle->entries.size() == 3);
  CHECK(fromMiddle->entries[0].id == stored[4].id);
  CHECK(fromMiddle->predecessor_checksum == stored[3].checksum);
  CHECK_FALSE(fromMiddle->next_since);

  const auto newest = log.list({}, fx.page(1, 2));
  REQUIRE(newest.ok());
  CHECK(newest->total == 7);
  CHECK(newest->items[0].id == stored[6].id);
  ports::AuditFilter byActor;
  byActor.actor_user_id = "u2";
  CHECK(log.list(byActor, fx.page())->total == 2);
  ports::AuditFilter byAction;
  byAction.action = "certificate.renew";
  CHECK(log.list(byAction, fx.page())->total == 3);

  // A time range: since is inclusive, until exclusive; with the other filters.
  ports::AuditFilter range;
  range.since = stored[2].timestamp;
  range.until = stored[5].timestamp;
  const auto inRange = log.list(range, fx.page());
  REQUIRE(inRange.ok());
  CHECK(inRange->total == 3);
  REQUIRE(inRange->items.size() == 3);
  CHECK(inRange->items[0].id == stored[4].id);  // newest first
  CHECK(inRange->items[2].id == stored[2].id);
  range.action = "certificate.renew";
  CHECK(log.list(range, fx.page())->total == 1);  // entry 3 (renewals are the odd ones)
  ports::AuditFilter onlySince;
  onlySince.since = stored[6].timestamp;
  CHECK(log.list(onlySince, fx.page())->total == 1);
  ports::AuditFilter onlyUntil;
  onlyUntil.until = stored[0].timestamp;
  CHECK(log.list(onlyUntil, fx.page())->total == 0);
  CHECK(ports::matches(range, stored[3]));
  CHECK_FALSE(ports::matches(range, stored[5]));
}

TEST_CASE_TEMPLATE("audit log: timestamps along the chain strictly increase", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  testing::FakeMac mac("k");
  AuditSealer sealer(mac);
  auto& log = fx.store->auditLog();
  Timestamp previous{};
  for (int i = 0; i < 5; ++i) {  // the same clock reading five times
    const auto e = log.append(draft(fx.ids.next(), fx.now(), "a"), sealer);
    REQUIRE(e.ok());
    CHECK(e->timestamp > previous);
    previous = e->timestamp;
  }
  CHECK(verifyAll(log, sealer, 2).verified == 5);
}

TEST_CASE_TEMPLATE("audit log: concurrent appends never fork the chain", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  testing::FakeMac mac("k");
  AuditSealer sealer(mac);
  auto& log = fx.store->auditLog();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        REQUIRE(log.append(draft(fx.ids.next(), fx.now(), "user.login"), sealer).ok());
      }
    });
  }
  for (auto& t : threads)
    t.join();
  const auto v = verifyAll(log, sealer, 64);
  CHECK(v.verified == 200);
  CHECK(v.intact);
}

TEST_CASE_TEMPLATE("audit log: a tampered entry is reported as a break", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  testing::FakeMac mac("k");
  AuditSealer sealer(mac);
  auto& log = fx.store->auditLog();
  std::vector<AuditEntry> stored;
  for (int i = 0; i < 4; ++i) {
    fx.clock.advance(1s);
    stored.push_back(*log.append(draft(fx.ids.next(), fx.now(), "certificate.create"), sealer));
  }
  AuditEntry forged = stored[2];
  forged.action = "certificate.view";  // hide a deletion behind a harmless action
  F::tamper(*fx.store, forged);
  const auto v = verifyAll(log, sealer, 100);
  CHECK_FALSE(v.intact);
  REQUIRE(v.breaks.size() == 1);
  CHECK(v.breaks[0].entry_id == stored[2].id);
  CHECK(v.breaks[0].actual_checksum == stored[2].checksum);
  CHECK(v.breaks[0].timestamp == stored[2].timestamp);
}

TEST_CASE_TEMPLATE("audit log: a rewritten actor or detail is an entry-MAC break", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  testing::FakeMac mac("k");
  AuditSealer sealer(mac);
  auto& log = fx.store->auditLog();
  std::vector<AuditEntry> stored;
  for (int i = 0; i < 4; ++i) {
    fx.clock.advance(1s);
    stored.push_back(*log.append(draft(fx.ids.next(), fx.now(), "certificate.create"), sealer));
  }
  CHECK(stored[1].mac == sealer.entryMac(stored[1]));
  AuditEntry forged = stored[1];
  forged.actor_user_id = "someone-else";  // blame another user
  forged.details = "nothing happened";
  F::tamper(*fx.store, forged);
  const auto v = verifyAll(log, sealer, 100);
  CHECK_FALSE(v.intact);
  REQUIRE(v.breaks.size() == 1);
  CHECK(v.breaks[0].entry_id == stored[1].id);
  CHECK(v.breaks[0].reason == "entry_mac");
}

TEST_CASE_TEMPLATE("audit log: the head and the entry at a sequence", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  testing::FakeMac mac("k");
  AuditSealer sealer(mac);
  auto& log = fx.store->auditLog();
  REQUIRE(log.head().ok());
  CHECK_FALSE(log.head()->has_value());
  std::vector<AuditEntry> stored;
  for (int i = 0; i < 3; ++i)
    stored.push_back(*log.append(draft(fx.ids.next(), fx.now(), "a"), sealer));
  const auto head = log.head();
  REQUIRE(head.ok());
  REQUIRE(head->has_value());
  CHECK((*head)->id == stored[2].id);
  CHECK((*head)->sequence == 3);
  const auto second = log.atSequence(2);
  REQUIRE(second.ok());
  REQUIRE(second->has_value());
  CHECK((*second)->checksum == stored[1].checksum);
  CHECK_FALSE(log.atSequence(4)->has_value());
}
