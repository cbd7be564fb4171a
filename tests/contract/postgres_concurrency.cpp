// What only concurrent sessions on a real PostgreSQL show: several instances (each a store with
// its own pool, as each server process has) and several threads writing at once. SQLite
// serialises every writer and the memory store holds one mutex, so these cases would prove
// nothing there; on PostgreSQL each relies on a row lock, SKIP LOCKED, an advisory lock or a
// unique index.
#include <doctest/doctest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include <certsteward/services/audit_sealer.hpp>
#include <certsteward/testing/contract/store_fixture.hpp>
#include <certsteward/testing/fakes.hpp>
#include "contract/store_factories.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace std::chrono_literals;

namespace {

using Fixture = testing::StoreFixture<testing::PostgresStoreFactory>;

// A second store on the same schema: another instance of the server.
std::unique_ptr<ports::Store> secondInstance(Fixture& fx) {
  return fx.factory.makeSharing(*fx.store);
}

// Runs body(t) on n threads at once. The bodies count what went wrong instead of asserting:
// doctest's assertions belong on the test's own thread.
template <class F>
void inThreads(int n, F&& body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t)
    threads.emplace_back([&, t] { body(t); });
  for (auto& t : threads)
    t.join();
}

}  // namespace

TEST_CASE("postgres: the unique username settles concurrent creates from two instances") {
  Fixture fx;
  auto other = secondInstance(fx);
  std::atomic<int> created{0};
  std::atomic<int> conflicts{0};
  inThreads(8, [&](int t) {
    User u;
    u.id = "u" + std::to_string(t);
    u.username = "same-name";
    const auto s = (t % 2 == 0 ? *fx.store : *other).users().create(u);
    if (s.ok()) ++created;
    if (!s.ok() && s.error().code == ErrorCode::conflict) ++conflicts;
  });
  CHECK(created == 1);
  CHECK(conflicts == 7);
}

TEST_CASE("postgres: concurrent enqueues with one idempotency key create one job") {
  Fixture fx;
  auto other = secondInstance(fx);
  std::atomic<int> created{0};
  std::atomic<int> failed{0};
  std::set<std::string> answered;
  std::mutex m;
  inThreads(8, [&](int t) {
    Job j = newJob("j" + std::to_string(t), "p", JobType::renew_certificate, fx.now());
    j.idempotency_key = "renew:c:1";
    auto r = (t % 2 == 0 ? *fx.store : *other).jobs().enqueue(j);
    if (!r.ok()) {
      ++failed;
      return;
    }
    if (r->created) ++created;
    const std::lock_guard lock(m);
    answered.insert(r->job.id);
  });
  CHECK(failed == 0);
  CHECK(created == 1);
  CHECK(answered.size() == 1);  // everyone was given the one job
}

TEST_CASE("postgres: workers of three instances claim every job exactly once") {
  Fixture fx;
  auto second = secondInstance(fx);
  auto third = secondInstance(fx);
  constexpr int kJobs = 60;
  for (int i = 0; i < kJobs; ++i) {
    REQUIRE(fx.store->jobs()
                .enqueue(newJob("j" + std::to_string(100 + i), "p", JobType::renew_certificate,
                                fx.now()))
                .ok());
  }
  std::mutex m;
  std::atomic<int> failed{0};
  std::multiset<std::string> claimed;
  ports::Store* stores[] = {fx.store.get(), second.get(), third.get()};
  inThreads(6, [&](int t) {
    JobContext ctx;
    ctx.now = fx.now();
    ctx.worker = "w" + std::to_string(t);
    auto& jobs = stores[t % 3]->jobs();
    for (int guard = 0; guard < kJobs; ++guard) {
      auto r = jobs.claim(Lane::standard, ctx);
      if (!r.ok()) {
        ++failed;
        return;
      }
      if (!r->claimed) break;
      const std::lock_guard lock(m);
      claimed.insert(r->claimed->id);
    }
  });
  CHECK(failed == 0);
  CHECK(claimed.size() == kJobs);
  CHECK(std::set<std::string>(claimed.begin(), claimed.end()).size() == kJobs);
}

TEST_CASE("postgres: one refresh token is consumed once among concurrent sessions") {
  Fixture fx;
  auto other = secondInstance(fx);
  RefreshToken token{"t1", "f1", "u1", fx.now(), fx.now() + 1h, false, false};
  REQUIRE(fx.store->refreshTokens().issue(token).ok());
  std::atomic<int> consumed{0};
  std::atomic<int> reused{0};
  inThreads(6, [&](int t) {
    auto r = (t % 2 == 0 ? *fx.store : *other).refreshTokens().consume("t1", fx.now());
    if (r.ok()) ++consumed;
    if (!r.ok() && r.error().reason == "TOKEN_REUSE") ++reused;
  });
  CHECK(consumed == 1);
  CHECK(reused >= 1);  // the first late one revoked the family; the rest find it revoked
}

TEST_CASE("postgres: audit appends from two instances chain without a gap or a fork") {
  Fixture fx;
  auto other = secondInstance(fx);
  testing::FakeMac mac("audit key");
  services::AuditSealer sealer(mac);
  std::atomic<int> failed{0};
  inThreads(6, [&](int t) {
    for (int i = 0; i < 10; ++i) {
      AuditEntry e;
      e.id = "a" + std::to_string(t) + "-" + std::to_string(i);
      e.timestamp = fx.now();
      e.action = "certificate.update";
      e.resource_type = "certificate";
      e.actor_user_id = "u1";
      if (!(t % 2 == 0 ? *fx.store : *other).auditLog().append(e, sealer).ok()) ++failed;
    }
  });
  CHECK(failed == 0);
  auto page = fx.store->auditLog().chainPage(std::nullopt, 1000);
  REQUIRE(page.ok());
  REQUIRE(page->entries.size() == 60);
  for (std::size_t i = 0; i < page->entries.size(); ++i)
    CHECK(page->entries[i].sequence == static_cast<std::int64_t>(i + 1));
  const auto v = services::verifyAuditPage(sealer, page->predecessor_checksum, page->entries,
                                           page->next_since);
  CHECK(v.intact);
  CHECK(v.verified == 60);
}

TEST_CASE("postgres: a guarded cap holds across instances") {
  Fixture fx;
  auto other = secondInstance(fx);
  constexpr std::int64_t kCap = 5;
  std::atomic<int> refused{0};
  std::atomic<int> failed{0};
  inThreads(8, [&](int t) {
    auto& store = t % 2 == 0 ? *fx.store : *other;
    for (int i = 0; i < 3; ++i) {
      const Status s = store.transactions().run({"license"}, [&]() -> Status {
        auto n = store.certificates().countAll();
        if (!n) return n.error();
        if (*n >= kCap) return makeError(ErrorCode::resource_exhausted, "cap reached");
        Certificate c;
        c.id = "c" + std::to_string(t) + "-" + std::to_string(i);
        c.project_id = "p";
        c.common_name = "example.test";
        c.issuer_type = "acme";
        c.created_at = fx.now();
        return store.certificates().create(c);
      });
      if (!s.ok()) ++(s.error().code == ErrorCode::resource_exhausted ? refused : failed);
    }
  });
  auto total = fx.store->certificates().countAll();
  REQUIRE(total.ok());
  CHECK(failed == 0);
  CHECK(*total == kCap);
  CHECK(refused == 24 - kCap);
}

TEST_CASE("postgres: a conflict answered inside a transaction does not void it") {
  Fixture fx;
  User a;
  a.id = "ua";
  a.username = "alice";
  REQUIRE(fx.store->users().create(a).ok());
  const Status s = fx.store->transactions().run([&]() -> Status {
    User dup;
    dup.id = "ub";
    dup.username = "alice";
    const auto refused = fx.store->users().create(dup);
    if (refused.ok() || refused.error().code != ErrorCode::conflict) {
      return makeError(ErrorCode::internal, "expected a conflict");
    }
    User c;
    c.id = "uc";
    c.username = "carol";
    return fx.store->users().create(c);  // the same transaction carries on
  });
  REQUIRE(s.ok());
  CHECK(fx.store->users().get("uc").ok());
  CHECK_FALSE(fx.store->users().get("ub").ok());
}

TEST_CASE("postgres: one leader lease among instances asking at once") {
  Fixture fx;
  auto other = secondInstance(fx);
  std::atomic<int> granted{0};
  std::atomic<int> failed{0};
  std::mutex m;
  std::set<std::string> winners;
  inThreads(8, [&](int t) {
    const std::string holder = "instance-" + std::to_string(t);
    auto r = (t % 2 == 0 ? *fx.store : *other)
                 .leaderLock()
                 .tryAcquire("scheduler", holder, fx.now(), 10s);
    if (!r.ok()) {
      ++failed;
      return;
    }
    if (*r) {
      ++granted;
      const std::lock_guard lock(m);
      winners.insert(holder);
    }
  });
  CHECK(failed == 0);
  REQUIRE(granted == 1);
  auto holder = other->leaderLock().holder("scheduler", fx.now());
  REQUIRE(holder.ok());
  CHECK(*holder == std::optional<std::string>(*winners.begin()));
}

TEST_CASE("postgres: concurrent updates of one certificate version: one wins, the rest conflict") {
  Fixture fx;
  auto other = secondInstance(fx);
  Certificate c;
  c.id = "c1";
  c.project_id = "p";
  c.common_name = "cas.example.test";
  c.issuer_type = "acme";
  c.created_at = fx.now();
  REQUIRE(fx.store->certificates().create(c).ok());
  auto read = fx.store->certificates().get("p", "c1");
  REQUIRE(read.ok());
  std::atomic<int> won{0};
  std::atomic<int> conflicts{0};
  inThreads(8, [&](int t) {
    Certificate mine = *read;
    mine.common_name = "writer" + std::to_string(t) + ".example.test";
    auto r = (t % 2 == 0 ? *fx.store : *other).certificates().update(mine);
    if (r.ok()) ++won;
    if (!r.ok() && r.error().code == ErrorCode::conflict) ++conflicts;
  });
  CHECK(won == 1);
  CHECK(conflicts == 7);
  auto after = other->certificates().get("p", "c1");
  REQUIRE(after.ok());
  CHECK(after->version == read->version + 1);
}

TEST_CASE("postgres: rate-limit hits from two instances are all counted, each count once") {
  Fixture fx;
  auto other = secondInstance(fx);
  std::mutex m;
  std::multiset<std::int64_t> counts;
  std::atomic<int> failed{0};
  inThreads(6, [&](int t) {
    for (int i = 0; i < 20; ++i) {
      auto r = (t % 2 == 0 ? *fx.store : *other).rateLimits().hit("login:1.2.3.4", 1h, fx.now());
      if (!r.ok()) {
        ++failed;
        continue;
      }
      const std::lock_guard lock(m);
      counts.insert(*r);
    }
  });
  CHECK(failed == 0);
  REQUIRE(counts.size() == 120);
  CHECK(std::set<std::int64_t>(counts.begin(), counts.end()).size() == 120);  // 1..120, no repeat
  CHECK(*counts.rbegin() == 120);
}
