// The scheduler on the memory store with a settable clock: one leader at a time, takeover after
// the lease or at once after resigning, and sweeps that renew exactly what is due, once.
#include <doctest/doctest.h>

#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/services/scheduler.hpp>
#include <certsteward/testing/fake_clock.hpp>
#include <certsteward/testing/sequential_ids.hpp>

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;
using namespace std::chrono_literals;

namespace {

struct Fixture {
  adapters::memory::MemoryStore store;
  testing::FakeClock clock;
  testing::SequentialIds ids{clock};
  // Batches of renewals in the store's transactions (as the server), in `tx`, or without.
  Scheduler make(bool transactional = true, ports::Transactions* tx = nullptr) {
    Scheduler::Ports ports{store.leaderLock(), store.certificates(), store.jobs(), ids, clock,
                           store.projects(),   store.settings()};
    if (transactional) ports.transactions = tx != nullptr ? tx : &store.transactions();
    return Scheduler(ports, SchedulerOptions{90s, 2, 10, {}});
  }
  Certificate cert(const std::string& name, CertificateStatus status, Duration renewIn,
                   bool autoRenew = true) {
    Certificate c;
    c.id = ids.next();
    c.project_id = "p1";
    c.common_name = name;
    c.sans = {name};
    c.status = status;
    c.auto_renew = autoRenew;
    c.expires_at = clock.now() + renewIn + std::chrono::days{30};
    c.next_renewal_at = clock.now() + renewIn;
    c.renewal_attempts = status == CertificateStatus::renewal_failed ? 3 : 0;
    REQUIRE(store.certificates().create(c).ok());
    return *store.certificates().get("p1", c.id);
  }
  std::int64_t renewJobs() {
    ports::JobFilter f;
    f.type = JobType::renew_certificate;
    return store.jobs().list("p1", f, PageRequest{1, 100})->total;
  }
};

}  // namespace

TEST_CASE("scheduler: one leader, a standby takes over after the lease or at once on resign") {
  Fixture fx;
  auto a = fx.make();
  auto b = fx.make();
  CHECK(*a.lead("instance-a"));
  CHECK_FALSE(*b.lead("instance-b"));
  fx.clock.advance(30s);  // a's heartbeat keeps it
  CHECK(*a.lead("instance-a"));
  fx.clock.advance(89s);
  CHECK_FALSE(*b.lead("instance-b"));
  fx.clock.advance(2s);  // a stopped heartbeating 91 s ago: the lease is gone
  CHECK(*b.lead("instance-b"));
  CHECK_FALSE(*a.lead("instance-a"));
  REQUIRE(b.resign("instance-b").ok());
  CHECK(*a.lead("instance-a"));
}

// Runs each transaction twice, as a store may after a transient write conflict: the first run
// rolled back, the second committed.
struct TwiceTransactions : ports::Transactions {
  ports::Transactions& real;
  int runs = 0;
  explicit TwiceTransactions(ports::Transactions& r) : real(r) {}
  Status run(const std::vector<std::string>& guards, const std::function<Status()>& body) override {
    (void)real.run(guards, [&]() -> Status {
      ++runs;
      if (auto s = body(); !s) return s;
      return makeError(ErrorCode::conflict, "a transient write conflict");
    });
    ++runs;
    return real.run(guards, body);
  }
};

TEST_CASE("scheduler: a batch the store runs again is queued and counted once") {
  Fixture fx;
  const auto a = fx.cert("a.example.com", CertificateStatus::active, -1h);
  const auto b = fx.cert("b.example.com", CertificateStatus::active, -2h);
  TwiceTransactions twice(fx.store.transactions());
  auto report = fx.make(true, &twice).sweep();
  REQUIRE(report.ok());
  CHECK(twice.runs == 2);  // the batch of two, run twice (an empty batch opens none)
  CHECK(report->due == 2);
  CHECK(report->enqueued == 2);
  CHECK(report->skipped == 0);
  CHECK(fx.renewJobs() == 2);
  for (const auto& c : {a, b}) {
    CHECK(fx.store.certificates().get("p1", c.id)->status == CertificateStatus::renewal_pending);
  }
}

// Deletes a certificate just before each transaction runs: one the sweep read as due is gone
// when it is written.
struct DeletingTransactions : ports::Transactions {
  ports::Transactions& real;
  ports::CertificateRepository& certificates;
  Id victim;
  DeletingTransactions(ports::Transactions& r, ports::CertificateRepository& c, Id v)
      : real(r), certificates(c), victim(std::move(v)) {}
  Status run(const std::vector<std::string>& guards, const std::function<Status()>& body) override {
    (void)certificates.remove("p1", victim);
    return real.run(guards, body);
  }
};

TEST_CASE("scheduler: a certificate deleted during the sweep is skipped, and the rest are queued") {
  Fixture fx;
  const auto gone = fx.cert("a.example.com", CertificateStatus::active, -1h);
  const auto kept = fx.cert("b.example.com", CertificateStatus::active, -2h);
  DeletingTransactions deleting(fx.store.transactions(), fx.store.certificates(), gone.id);
  auto report = fx.make(true, &deleting).sweep();
  REQUIRE(report.ok());
  CHECK(report->due == 2);
  CHECK(report->skipped == 1);
  CHECK(fx.store.certificates().get("p1", kept.id)->status == CertificateStatus::renewal_pending);
  CHECK_FALSE(fx.store.certificates().get("p1", gone.id).ok());
}

TEST_CASE("scheduler: a sweep renews what is due, once, across batches and instances") {
  for (const bool transactional : {true, false}) {
    CAPTURE(transactional);
    Fixture fx;
    const auto dueActive = fx.cert("a.example.com", CertificateStatus::active, -1h);
    const auto dueFailed = fx.cert("b.example.com", CertificateStatus::renewal_failed, -1min);
    const auto dueToo = fx.cert("c.example.com", CertificateStatus::active, -2h);
    const auto notDue = fx.cert("d.example.com", CertificateStatus::active, 1h);
    const auto manual = fx.cert("e.example.com", CertificateStatus::active, -1h, false);
    const auto issuing = fx.cert("f.example.com", CertificateStatus::issuing, -1h);
    auto scheduler = fx.make(transactional);
    auto report = scheduler.sweep();
    REQUIRE(report.ok());
    CHECK(report->due == 3);  // in two batches of 2
    CHECK(report->enqueued == 3);
    CHECK(fx.renewJobs() == 3);
    for (const auto& c : {dueActive, dueFailed, dueToo}) {
      CHECK(fx.store.certificates().get("p1", c.id)->status == CertificateStatus::renewal_pending);
    }
    CHECK(fx.store.certificates().get("p1", notDue.id)->status == CertificateStatus::active);
    CHECK(fx.store.certificates().get("p1", manual.id)->status == CertificateStatus::active);
    CHECK(fx.store.certificates().get("p1", issuing.id)->status == CertificateStatus::issuing);

    // Again, and from another instance: nothing new.
    CHECK(scheduler.sweep()->enqueued == 0);
    CHECK(fx.make(transactional).sweep()->enqueued == 0);
    CHECK(fx.renewJobs() == 3);

    // The job carries the certificate and the idempotency key of its expiry.
    ports::JobFilter f;
    f.certificate_id = dueActive.id;
    const auto jobs = fx.store.jobs().list("p1", f, PageRequest{1, 10});
    REQUIRE(jobs->items.size() == 1);
    CHECK(jobs->items[0].idempotency_key == renewalIdempotencyKey(dueActive));
  }
}

TEST_CASE("scheduler: a certificate left active beside its queued job is moved by the next sweep") {
  Fixture fx;
  const auto c = fx.cert("a.example.com", CertificateStatus::active, -1h);
  // As if an earlier sweep queued the job and stopped before updating the certificate.
  Job job = newJob(fx.ids.next(), "p1", JobType::renew_certificate, fx.clock.now());
  job.certificate_id = c.id;
  job.idempotency_key = renewalIdempotencyKey(c);
  REQUIRE(fx.store.jobs().enqueue(job).ok());
  auto report = fx.make().sweep();
  REQUIRE(report.ok());
  CHECK(report->enqueued == 0);
  CHECK(fx.renewJobs() == 1);
  CHECK(fx.store.certificates().get("p1", c.id)->status == CertificateStatus::renewal_pending);
}

TEST_CASE("scheduler: one expiry check per project on the first sweep of each UTC day") {
  Fixture fx;
  fx.clock.set(fromUnixSeconds(1795000000));  // 2026-11-18 11:06:40 UTC
  for (const char* name : {"alpha", "beta", "gamma"}) {
    Project p;
    p.id = std::string("proj-") + name;
    p.name = name;
    p.created_at = p.updated_at = fx.clock.now();
    REQUIRE(fx.store.projects().create(p).ok());
  }
  const auto checks = [&](const std::string& project) {
    ports::JobFilter f;
    f.type = JobType::certificate_expiration_check;
    return fx.store.jobs().list(project, f, PageRequest{1, 100})->items;
  };
  auto scheduler = fx.make();  // batches of 2: the projects are read in two pages
  auto first = scheduler.sweep();
  REQUIRE(first.ok());
  CHECK(first->expiry_checks == 3);
  for (const char* id : {"proj-alpha", "proj-beta", "proj-gamma"}) {
    const auto jobs = checks(id);
    REQUIRE(jobs.size() == 1);
    CHECK(jobs[0].idempotency_key == std::string("expiry-check:") + id + ":2026-11-18");
    CHECK_FALSE(jobs[0].parent_id.has_value());
  }
  // Later the same day, and from another instance: nothing more.
  fx.clock.advance(12h);  // 23:06
  CHECK(scheduler.sweep()->expiry_checks == 0);
  CHECK(fx.make().sweep()->expiry_checks == 0);
  CHECK(checks("proj-beta").size() == 1);
  // The next UTC day: one more each.
  fx.clock.advance(1h);  // 00:06
  CHECK(scheduler.sweep()->expiry_checks == 3);
  CHECK(checks("proj-beta").size() == 2);
}

TEST_CASE(
    "scheduler: certificates pending distribution for over 5 minutes get a distribution job") {
  Fixture fx;
  auto stale = fx.cert("stale.example.com", CertificateStatus::active, 10 * 24h);
  setDistributionPending(stale, true, fx.clock.now() - 6min);
  REQUIRE(fx.store.certificates().update(stale).ok());
  auto fresh = fx.cert("fresh.example.com", CertificateStatus::active, 10 * 24h);
  setDistributionPending(fresh, true, fx.clock.now() - 1min);
  REQUIRE(fx.store.certificates().update(fresh).ok());
  const auto jobsFor = [&](const Id& cert) {
    ports::JobFilter f;
    f.type = JobType::distribution_execute;
    f.certificate_id = cert;
    return fx.store.jobs().list("p1", f, PageRequest{1, 10})->items;
  };
  auto scheduler = fx.make();
  CHECK(scheduler.sweep()->distributions == 1);
  auto queued = jobsFor(stale.id);
  REQUIRE(queued.size() == 1);
  CHECK(queued[0].idempotency_key == distributionIdempotencyKey(stale));
  CHECK(jobsFor(fresh.id).empty());
  CHECK(scheduler.sweep()->distributions == 0);  // still queued: not twice

  // Gone dead: left for a person to retry, not restarted by every sweep.
  Job dead = queued[0];
  for (int i = 0; i < dead.max_attempts; ++i) {
    REQUIRE(fx.store.jobs()
                .claim(Lane::distribution, JobContext{fx.clock.now(), "w", "", {}})
                ->claimed.has_value());
    REQUIRE(fx.store.jobs()
                .apply(dead.id, JobEvent::fail, JobContext{fx.clock.now(), "w", "unreachable", {}})
                .ok());
    fx.clock.advance(1h);
  }
  REQUIRE(fx.store.jobs().get("p1", dead.id)->status == JobStatus::dead);
  CHECK(scheduler.sweep()->distributions == 1);  // only `fresh`, now stale too
  CHECK(jobsFor(stale.id).size() == 1);
  CHECK(jobsFor(fresh.id).size() == 1);
}
