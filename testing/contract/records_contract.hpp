// Contract of the records that hold across instances: licence, refresh tokens, idempotency,
// HTTP-01 challenge tokens, rate-limit counters, the leader lock, settings and CA activity — on
// every adapter.
//
// A suite header: include it from one test file of its own, after defining
// CERTSTEWARD_STORE_FACTORIES as the list of store factories to run it against
// (testing/contract/store_fixture.hpp says what a factory provides).
#pragma once

#ifndef CERTSTEWARD_STORE_FACTORIES
#error "define CERTSTEWARD_STORE_FACTORIES (the store factories) before including a contract suite"
#endif

#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include <certsteward/testing/contract/store_fixture.hpp>

using namespace certsteward;
using namespace certsteward::domain;
using namespace std::chrono_literals;

TEST_CASE_TEMPLATE("license: none until put, and put replaces", F, CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& repo = fx.store->license();
  CHECK_FALSE(repo.get()->has_value());
  License l;
  l.plan_name = "Enterprise";
  l.cert_limit = 50;
  l.expires_at = fx.now() + 24h;
  l.license_key = "key-1";
  REQUIRE(repo.put(l).ok());
  CHECK(repo.get()->value().cert_limit == 50);
  l.cert_limit = std::nullopt;
  l.license_key = "key-2";
  REQUIRE(repo.put(l).ok());
  const auto stored = repo.get()->value();
  CHECK_FALSE(stored.cert_limit);
  CHECK(stored.license_key == "key-2");
  CHECK(stored.expires_at == fx.now() + 24h);
}

TEST_CASE_TEMPLATE("refresh tokens: single use, reuse revokes the family", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& store = fx.store->refreshTokens();
  const auto token = [&](std::string id, std::string family, std::string user) {
    return RefreshToken{std::move(id), std::move(family),  std::move(user),
                        fx.now(),      fx.now() + 7 * 24h, false,
                        false};
  };
  REQUIRE(store.issue(token("t1", "f1", "u1")).ok());
  CHECK(store.issue(token("t1", "f1", "u1")).error().code == ErrorCode::conflict);
  const auto used = store.consume("t1", fx.now());
  REQUIRE(used.ok());
  CHECK(used->family_id == "f1");
  CHECK_FALSE(used->consumed);
  REQUIRE(store.issue(token("t2", "f1", "u1")).ok());  // the rotated successor

  const auto reuse = store.consume("t1", fx.now());
  REQUIRE_FALSE(reuse.ok());
  CHECK(reuse.error().code == ErrorCode::unauthenticated);
  CHECK(reuse.error().reason == "TOKEN_REUSE");
  const auto successor = store.consume("t2", fx.now());  // the family is revoked
  REQUIRE_FALSE(successor.ok());
  CHECK(successor.error().reason == "TOKEN_INVALID");

  CHECK(store.consume("nope", fx.now()).error().reason == "TOKEN_INVALID");
  REQUIRE(store.issue(token("t3", "f3", "u1")).ok());
  CHECK(store.consume("t3", fx.now() + 8 * 24h).error().reason == "TOKEN_INVALID");  // expired

  REQUIRE(store.issue(token("t4", "f4", "u1")).ok());
  REQUIRE(store.issue(token("t5", "f5", "u2")).ok());
  REQUIRE(store.revokeUser("u1").ok());
  CHECK(store.consume("t4", fx.now()).error().reason == "TOKEN_INVALID");
  CHECK(store.consume("t5", fx.now()).ok());
  REQUIRE(store.issue(token("t6", "f6", "u2")).ok());
  REQUIRE(store.revokeFamily("f6").ok());
  CHECK_FALSE(store.consume("t6", fx.now()).ok());
  CHECK(store.revokeFamily("unknown").ok());
}

TEST_CASE_TEMPLATE("refresh tokens: a user's live sessions, one per family, oldest first", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& store = fx.store->refreshTokens();
  const auto at = [&](std::string id, std::string family, std::string user, Duration age) {
    return RefreshToken{std::move(id),  std::move(family),        std::move(user),
                        fx.now() - age, fx.now() - age + 7 * 24h, false,
                        false};
  };
  // f1: a login two hours ago, renewed an hour ago (its first token consumed).
  REQUIRE(store.issue(at("a1", "f1", "u1", 2h)).ok());
  REQUIRE(store.consume("a1", fx.now()).ok());
  REQUIRE(store.issue(at("a2", "f1", "u1", 1h)).ok());
  // f2: a login a minute ago. f3: logged out. f4: another user's.
  REQUIRE(store.issue(at("b1", "f2", "u1", 1min)).ok());
  REQUIRE(store.issue(at("c1", "f3", "u1", 30min)).ok());
  REQUIRE(store.revokeFamily("f3").ok());
  REQUIRE(store.issue(at("d1", "f4", "u2", 10min)).ok());

  auto live = store.sessionsOf("u1", fx.now());
  REQUIRE(live.ok());
  REQUIRE(live->size() == 2);
  CHECK((*live)[0].family_id == "f1");
  CHECK((*live)[0].started_at == fx.now() - 2h);
  CHECK((*live)[0].last_renewed_at == fx.now() - 1h);
  CHECK((*live)[0].expires_at == fx.now() - 1h + 7 * 24h);
  CHECK((*live)[1].family_id == "f2");
  // Eight days on, every token has expired: no session is live.
  CHECK(store.sessionsOf("u1", fx.now() + 8 * 24h)->empty());
  CHECK(store.sessionsOf("nobody", fx.now())->empty());
  REQUIRE(store.revokeUser("u1").ok());
  CHECK(store.sessionsOf("u1", fx.now())->empty());
  CHECK(store.sessionsOf("u2", fx.now())->size() == 1);
}

TEST_CASE_TEMPLATE("refresh tokens: of concurrent consumers exactly one succeeds", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& store = fx.store->refreshTokens();
  for (int round = 0; round < 20; ++round) {
    const std::string id = "race-" + std::to_string(round);
    REQUIRE(store.issue({id, "fam-" + id, "u", fx.now(), fx.now() + 1h, false, false}).ok());
    std::atomic<int> wins{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&] {
        if (store.consume(id, fx.now()).ok()) ++wins;
      });
    }
    for (auto& t : threads)
      t.join();
    CHECK(wins == 1);
  }
}

TEST_CASE_TEMPLATE("idempotency: a record replays for its window and a second save conflicts", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& store = fx.store->idempotency();
  CHECK_FALSE(store.find("u1:POST /x:key", fx.now())->has_value());
  IdempotencyRecord r{"u1:POST /x:key",
                      "sha256:abc",
                      201,
                      "application/json",
                      R"({"id":"1"})",
                      fx.now(),
                      fx.now() + kIdempotencyWindow};
  REQUIRE(store.save(r, fx.now()).ok());
  const auto found = store.find(r.key, fx.now() + 23h);
  REQUIRE(found->has_value());
  CHECK((*found)->status_code == 201);
  CHECK((*found)->body == R"({"id":"1"})");
  CHECK((*found)->request_fingerprint == "sha256:abc");
  CHECK(store.save(r, fx.now()).error().code == ErrorCode::conflict);
  CHECK_FALSE(store.find(r.key, fx.now() + 24h)->has_value());  // window over
  IdempotencyRecord later = r;
  later.created_at = fx.now() + 25h;
  later.expires_at = later.created_at + kIdempotencyWindow;
  later.body = "new";
  REQUIRE(store.save(later, fx.now() + 25h).ok());  // an expired key can be used again
  CHECK((*store.find(r.key, fx.now() + 25h))->body == "new");
}

TEST_CASE_TEMPLATE("challenge tokens: put then find answers the key authorization", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& tokens = fx.store->challengeTokens();
  const std::string token = "evaGxfADs6pSRb2LAv9IZf17Dt3juxGJ-PCt92wr-oA";
  const std::string answer = token + ".nP1qzpXGymHBrUEepNY9HCsQk7K8KhOypzEY7oBsUaw";
  CHECK_FALSE(tokens.find(token, fx.now())->has_value());
  REQUIRE(tokens.put(token, answer, fx.now() + 10min, fx.now()).ok());
  const auto found = tokens.find(token, fx.now());
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  CHECK(**found == answer);
  CHECK(tokens.find(token, fx.now() + 10min - 1ms)->value() == answer);
  CHECK_FALSE(tokens.find("unknown-token", fx.now())->has_value());
}

TEST_CASE_TEMPLATE("challenge tokens: a second put replaces the answer and its expiry", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& tokens = fx.store->challengeTokens();
  REQUIRE(tokens.put("tok", "tok.first", fx.now() + 10min, fx.now()).ok());
  REQUIRE(tokens.put("tok", "tok.second", fx.now() + 5min, fx.now()).ok());
  CHECK(tokens.find("tok", fx.now())->value() == "tok.second");
  CHECK_FALSE(tokens.find("tok", fx.now() + 6min)->has_value());  // the new, shorter expiry
}

TEST_CASE_TEMPLATE("challenge tokens: remove forgets a token, and an absent one is no error", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& tokens = fx.store->challengeTokens();
  REQUIRE(tokens.put("tok", "tok.thumb", fx.now() + 10min, fx.now()).ok());
  REQUIRE(tokens.remove("tok").ok());
  CHECK_FALSE(tokens.find("tok", fx.now())->has_value());
  CHECK(tokens.remove("tok").ok());
  CHECK(tokens.remove("never-stored").ok());
}

TEST_CASE_TEMPLATE("challenge tokens: a token is not found once its expiry is reached", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& tokens = fx.store->challengeTokens();
  REQUIRE(tokens.put("short", "short.thumb", fx.now() + 1min, fx.now()).ok());
  CHECK_FALSE(tokens.find("short", fx.now() + 1min)->has_value());  // expiry <= now: gone
  CHECK_FALSE(tokens.find("short", fx.now() + 2min)->has_value());
  // A later put (which drops expired tokens where the store does it on write) changes nothing
  // of what find answers.
  REQUIRE(tokens.put("later", "later.thumb", fx.now() + 12min, fx.now() + 2min).ok());
  CHECK_FALSE(tokens.find("short", fx.now() + 2min)->has_value());
  CHECK(tokens.find("later", fx.now() + 2min)->value() == "later.thumb");
  // Stored already expired: never answered.
  REQUIRE(tokens.put("stale", "stale.thumb", fx.now(), fx.now()).ok());
  CHECK_FALSE(tokens.find("stale", fx.now())->has_value());
}

TEST_CASE_TEMPLATE("challenge tokens: two tokens are independent", F, CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& tokens = fx.store->challengeTokens();
  REQUIRE(tokens.put("a", "a.thumb", fx.now() + 10min, fx.now()).ok());
  REQUIRE(tokens.put("b", "b.thumb", fx.now() + 20min, fx.now()).ok());
  CHECK(tokens.find("a", fx.now())->value() == "a.thumb");
  CHECK(tokens.find("b", fx.now())->value() == "b.thumb");
  REQUIRE(tokens.put("a", "a.again", fx.now() + 10min, fx.now()).ok());
  CHECK(tokens.find("b", fx.now())->value() == "b.thumb");
  REQUIRE(tokens.remove("a").ok());
  CHECK_FALSE(tokens.find("a", fx.now())->has_value());
  CHECK(tokens.find("b", fx.now())->value() == "b.thumb");
  CHECK_FALSE(tokens.find("a", fx.now() + 15min)->has_value());
  CHECK(tokens.find("b", fx.now() + 15min)->value() == "b.thumb");  // a's expiry is not b's
}

TEST_CASE_TEMPLATE("rate limits: fixed windows per bucket", F, CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& counter = fx.store->rateLimits();
  const Timestamp windowStart{std::chrono::floor<std::chrono::minutes>(fx.now())};
  for (int i = 1; i <= 10; ++i) {
    CHECK(*counter.hit("login:ip:127.0.0.1", 1min, windowStart + std::chrono::seconds{i}) == i);
  }
  CHECK(*counter.hit("login:user:alice", 1min, windowStart + 30s) == 1);
  CHECK(*counter.hit("login:ip:127.0.0.1", 1min, windowStart + 59s) == 11);
  CHECK(*counter.hit("login:ip:127.0.0.1", 1min, windowStart + 60s) == 1);  // next window
  CHECK(counter.hit("x", 0s, fx.now()).error().code == ErrorCode::invalid_argument);
}

TEST_CASE_TEMPLATE("ca activity: counted per directory, registered domain and kind since a time", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& log = fx.store->caActivity();
  const std::string le = "https://acme-v02.api.letsencrypt.org/directory";
  int next = 0;
  const auto record = [&](const std::string& directory, const std::string& domain,
                          CaActivityKind kind, Timestamp at) {
    CaActivity a;
    a.id = "65a0000000000000000000" + std::to_string(10 + next++);
    a.directory_url = directory;
    a.registered_domain = domain;
    a.kind = kind;
    a.at = at;
    a.project_id = "p1";
    REQUIRE(log.record(a).ok());
    return a;
  };
  const auto t0 = fx.now();
  CHECK(*log.count(le, "example.com", CaActivityKind::order_created, t0 - 3h) == 0);
  CHECK_FALSE(log.latest(le, "example.com", CaActivityKind::rate_limited)->has_value());
  record(le, "example.com", CaActivityKind::order_created, t0 - 4h);  // outside a 3 h window
  record(le, "example.com", CaActivityKind::order_created, t0 - 2h);
  record(le, "example.com", CaActivityKind::order_created, t0 - 3h);  // on the edge: counted
  record(le, "example.com", CaActivityKind::certificate_issued, t0 - 1h);
  record(le, "example.org", CaActivityKind::order_created, t0);
  record("https://ca.example/dir", "example.com", CaActivityKind::order_created, t0);
  CHECK(*log.count(le, "example.com", CaActivityKind::order_created, t0 - 3h) == 2);
  CHECK(*log.count(le, "example.com", CaActivityKind::order_created, t0 - 5h) == 3);
  CHECK(*log.count(le, "example.com", CaActivityKind::certificate_issued, t0 - 7 * 24h) == 1);
  CHECK(*log.count(le, "example.org", CaActivityKind::order_created, t0 - 3h) == 1);
  CHECK(*log.count(le, "example.net", CaActivityKind::order_created, t0 - 3h) == 0);

  auto older = record(le, "example.com", CaActivityKind::rate_limited, t0 - 30min);
  auto newest = record(le, "example.com", CaActivityKind::rate_limited, t0 - 10min);
  newest.retry_until = t0 + 50min;
  newest.detail = "too many certificates (50) already issued for \"example.com\"";
  newest.id = "65a0000000000000000000" + std::to_string(10 + next++);
  REQUIRE(log.record(newest).ok());  // same instant as the one above, written later, with a time
  const auto latest = log.latest(le, "example.com", CaActivityKind::rate_limited);
  REQUIRE(latest.ok());
  REQUIRE(latest->has_value());
  CHECK((*latest)->id == newest.id);
  CHECK((*latest)->at == t0 - 10min);
  CHECK((*latest)->retry_until == t0 + 50min);
  CHECK((*latest)->detail == newest.detail);
  CHECK((*latest)->project_id == "p1");
  CHECK((*latest)->directory_url == le);
  CHECK((*latest)->registered_domain == "example.com");
  CHECK((*latest)->kind == CaActivityKind::rate_limited);
  CHECK(older.at < (*latest)->at);
  CHECK_FALSE(log.latest(le, "example.org", CaActivityKind::rate_limited)->has_value());
}

TEST_CASE_TEMPLATE("ca activity: the hold of an account is its refusal reaching furthest", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& log = fx.store->caActivity();
  const std::string le = "https://acme-v02.api.letsencrypt.org/directory";
  const auto t0 = fx.now();
  int next = 0;
  const auto refusal = [&](const std::string& account, Duration ago,
                           std::optional<Timestamp> until) {
    CaActivity a;
    a.id = "65b0000000000000000000" + std::to_string(10 + next++);
    a.directory_url = le;
    a.registered_domain = "example.com";
    a.kind = CaActivityKind::rate_limited;
    a.at = t0 - ago;
    a.project_id = "p1";
    a.account_id = account;
    a.retry_until = until;
    REQUIRE(log.record(a).ok());
    return a;
  };
  CHECK_FALSE(log.activeHold(le, "example.com", "acct-1", t0)->has_value());
  const auto week = refusal("acct-1", 2h, t0 + 7 * 24h);
  refusal("acct-1", 1h, t0 + 5min);         // newer, but shorter: the week still holds
  refusal("acct-1", 30min, std::nullopt);   // newer, without Retry-After
  refusal("acct-1", 3h, t0 - 1min);         // already over
  refusal("acct-2", 10min, t0 + 30 * 24h);  // another account's
  const auto hold = log.activeHold(le, "example.com", "acct-1", t0);
  REQUIRE(hold.ok());
  REQUIRE(hold->has_value());
  CHECK((*hold)->id == week.id);
  CHECK((*hold)->retry_until == t0 + 7 * 24h);
  CHECK((*hold)->account_id == "acct-1");
  CHECK_FALSE(log.activeHold(le, "example.com", "acct-1", t0 + 8 * 24h)->has_value());
  CHECK_FALSE(log.activeHold(le, "example.com", "acct-3", t0)->has_value());
  CHECK_FALSE(log.activeHold(le, "example.org", "acct-1", t0)->has_value());
  CHECK(log.activeHold(le, "example.com", "acct-2", t0)->value().retry_until == t0 + 30 * 24h);
}

TEST_CASE_TEMPLATE("ca activity: records past the retention are dropped", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& log = fx.store->caActivity();
  const std::string dir = "https://ca.example/dir";
  CaActivity old;
  old.id = "65a000000000000000000001";
  old.directory_url = dir;
  old.registered_domain = "example.com";
  old.kind = CaActivityKind::order_created;
  old.at = fx.now() - kCaActivityRetention - 1h;
  old.project_id = "p1";
  REQUIRE(log.record(old).ok());
  CaActivity recent = old;
  recent.id = "65a000000000000000000002";
  recent.at = fx.now();
  REQUIRE(log.record(recent).ok());
  CHECK(*log.count(dir, "example.com", CaActivityKind::order_created,
                   fx.now() - kCaActivityRetention) == 1);
  // The memory and SQLite stores drop it on the write; MongoDB's TTL index (expire_at) does it
  // in its own time.
  if (std::string_view(F::kName) != "mongo") {
    CHECK(*log.count(dir, "example.com", CaActivityKind::order_created, old.at - 1h) == 1);
  }
}

TEST_CASE_TEMPLATE("leader lock: one holder, renewal, takeover after the TTL, release", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& lock = fx.store->leaderLock();
  CHECK_FALSE(lock.holder("scheduler", fx.now())->has_value());
  CHECK(*lock.tryAcquire("scheduler", "a", fx.now(), 90s));
  CHECK_FALSE(*lock.tryAcquire("scheduler", "b", fx.now() + 30s, 90s));
  CHECK(*lock.tryAcquire("scheduler", "a", fx.now() + 60s, 90s));  // heartbeat extends
  CHECK_FALSE(*lock.tryAcquire("scheduler", "b", fx.now() + 140s, 90s));
  CHECK(lock.holder("scheduler", fx.now() + 140s)->value() == "a");
  CHECK(*lock.tryAcquire("scheduler", "b", fx.now() + 150s, 90s));  // a stopped heartbeating
  CHECK(lock.holder("scheduler", fx.now() + 150s)->value() == "b");
  REQUIRE(lock.release("scheduler", "a").ok());  // not the holder: no effect
  CHECK(lock.holder("scheduler", fx.now() + 150s)->value() == "b");
  REQUIRE(lock.release("scheduler", "b").ok());
  CHECK(*lock.tryAcquire("scheduler", "a", fx.now() + 151s, 90s));
  CHECK(*lock.tryAcquire("other-lock", "b", fx.now() + 151s, 90s));
}

TEST_CASE_TEMPLATE("leader lock: concurrent contenders never both hold it", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& lock = fx.store->leaderLock();
  for (int round = 0; round < 50; ++round) {
    const std::string name = "race-" + std::to_string(round);
    std::atomic<int> holders{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
      threads.emplace_back([&, t] {
        if (*lock.tryAcquire(name, "i" + std::to_string(t), fx.now(), 90s)) ++holders;
      });
    }
    for (auto& t : threads)
      t.join();
    CHECK(holders == 1);
  }
}

TEST_CASE_TEMPLATE("settings: documents by key", F, CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& settings = fx.store->settings();
  CHECK_FALSE(settings.get("ldap")->has_value());
  REQUIRE(settings.put({"ldap", R"({"host":"127.0.0.1"})", fx.now()}).ok());
  REQUIRE(settings.put({"ldap", R"({"host":"ldap.internal"})", fx.now()}).ok());
  CHECK((*settings.get("ldap"))->value == R"({"host":"ldap.internal"})");
  CHECK_FALSE(settings.get("smtp")->has_value());
}
