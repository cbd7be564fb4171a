// Contract of JobQueue, JobLogRepository and EventLog, run against every store adapter.
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
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include <certsteward/testing/contract/store_fixture.hpp>

using namespace certsteward;
using namespace certsteward::domain;
using namespace std::chrono_literals;

namespace {

template <class F>
Job makeJob(testing::StoreFixture<F>& fx, const Id& project,
            JobType type = JobType::issue_certificate) {
  Job j = newJob(fx.ids.next(), project, type, fx.now());
  j.certificate_id = "c1";
  j.payload["k"] = "v";
  return j;
}

JobContext at(Timestamp now, std::string worker = "w1", std::string error = {}) {
  return JobContext{now, std::move(worker), std::move(error), JobPolicy{}};
}

}  // namespace

TEST_CASE_TEMPLATE("job queue: enqueue, get, tenancy and listing", F, CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& q = fx.store->jobs();
  const Job a = makeJob(fx, "p1");
  fx.clock.advance(1s);
  const Job b = makeJob(fx, "p1", JobType::cleanup_dns);
  const Job other = makeJob(fx, "p2");
  for (const auto& j : {a, b, other})
    REQUIRE(q.enqueue(j)->created);
  CHECK(q.enqueue(a).error().code == ErrorCode::conflict);
  const auto got = q.get("p1", a.id);
  REQUIRE(got.ok());
  CHECK(got->type == JobType::issue_certificate);
  CHECK(got->certificate_id == std::optional<Id>("c1"));
  CHECK(got->payload.at("k") == "v");
  CHECK(got->max_attempts == 3);
  CHECK(got->next_run_at == a.next_run_at);
  CHECK(q.get("p2", a.id).error().code == ErrorCode::not_found);

  const auto all = q.list("p1", {}, fx.page());
  REQUIRE(all.ok());
  CHECK(all->total == 2);
  CHECK(all->items[0].id == b.id);  // newest first
  ports::JobFilter byType;
  byType.type = JobType::cleanup_dns;
  CHECK(q.list("p1", byType, fx.page())->total == 1);
  ports::JobFilter byStatus;
  byStatus.status = JobStatus::dead;
  CHECK(q.list("p1", byStatus, fx.page())->total == 0);
  ports::JobFilter byCert;
  byCert.certificate_id = "c2";
  CHECK(q.list("p1", byCert, fx.page())->total == 0);
}

TEST_CASE_TEMPLATE("job queue: an idempotency key blocks duplicates only while unfinished", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& q = fx.store->jobs();
  Job first = makeJob(fx, "p1", JobType::renew_certificate);
  first.idempotency_key = "renew:c1:1767225600";
  REQUIRE(q.enqueue(first)->created);
  Job dup = makeJob(fx, "p1", JobType::renew_certificate);
  dup.idempotency_key = first.idempotency_key;
  const auto again = q.enqueue(dup);
  REQUIRE(again.ok());
  CHECK_FALSE(again->created);
  CHECK(again->job.id == first.id);
  // Still blocked while active.
  REQUIRE(q.claim(Lane::standard, at(fx.now()))->claimed);
  CHECK_FALSE(q.enqueue(dup)->created);
  // Finished: a new job with the same key is accepted.
  REQUIRE(q.apply(first.id, JobEvent::succeed, at(fx.now())).ok());
  CHECK(q.enqueue(dup)->created);
}

TEST_CASE_TEMPLATE("job queue: retrying a job is refused while another holds its key", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& q = fx.store->jobs();
  Job old = makeJob(fx, "p1", JobType::renew_certificate);
  old.idempotency_key = "renew:c1:1";
  REQUIRE(q.enqueue(old)->created);
  REQUIRE(q.apply(old.id, JobEvent::cancel, at(fx.now(), "")).ok());
  Job current = makeJob(fx, "p1", JobType::renew_certificate);
  current.idempotency_key = old.idempotency_key;
  REQUIRE(q.enqueue(current)->created);
  const auto retried = q.apply(old.id, JobEvent::retry, at(fx.now(), ""));
  REQUIRE_FALSE(retried.ok());
  CHECK(retried.error().code == ErrorCode::conflict);
  CHECK(q.get("p1", old.id)->status == JobStatus::cancelled);  // unchanged
  REQUIRE(q.apply(current.id, JobEvent::cancel, at(fx.now(), "")).ok());
  CHECK(q.apply(old.id, JobEvent::retry, at(fx.now(), "")).ok());  // the key is free again
}

TEST_CASE_TEMPLATE("job queue: claim takes the earliest due job of the lane", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& q = fx.store->jobs();
  Job later = makeJob(fx, "p1");
  later.next_run_at = fx.now() + 1min;
  Job early = makeJob(fx, "p1");
  early.next_run_at = fx.now() - 1min;
  Job now = makeJob(fx, "p1");
  Job dist = makeJob(fx, "p1", JobType::distribution_execute);
  for (const auto& j : {later, early, now, dist})
    REQUIRE(q.enqueue(j).ok());

  auto c1 = q.claim(Lane::standard, at(fx.now(), "w1"));
  REQUIRE(c1.ok());
  REQUIRE(c1->claimed);
  CHECK(c1->claimed->id == early.id);
  CHECK(c1->claimed->status == JobStatus::active);
  CHECK(c1->claimed->locked_by == "w1");
  CHECK(c1->claimed->attempts == 1);
  CHECK(c1->claimed->lock_expires_at == fx.now() + 5min);
  auto c2 = q.claim(Lane::standard, at(fx.now(), "w2"));
  REQUIRE(c2->claimed);
  CHECK(c2->claimed->id == now.id);
  CHECK_FALSE(q.claim(Lane::standard, at(fx.now(), "w3"))->claimed);  // `later` is not due
  auto d = q.claim(Lane::distribution, at(fx.now(), "w4"));
  REQUIRE(d->claimed);
  CHECK(d->claimed->id == dist.id);
  fx.clock.advance(1min);
  CHECK(q.claim(Lane::standard, at(fx.now(), "w3"))->claimed->id == later.id);
}

TEST_CASE_TEMPLATE("job queue: the life of a job through apply", F, CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& q = fx.store->jobs();
  const Job j = makeJob(fx, "p1");
  REQUIRE(q.enqueue(j).ok());
  REQUIRE(q.claim(Lane::standard, at(fx.now(), "w1"))->claimed);

  fx.clock.advance(4min);
  const auto hb = q.apply(j.id, JobEvent::heartbeat, at(fx.now(), "w1"));
  REQUIRE(hb.ok());
  CHECK(hb->job.lock_expires_at == fx.now() + 5min);
  CHECK(q.apply(j.id, JobEvent::heartbeat, at(fx.now(), "intruder")).error().code ==
        ErrorCode::failed_precondition);

  const auto failed = q.apply(j.id, JobEvent::fail, at(fx.now(), "w1", "CA said no"));
  REQUIRE(failed.ok());
  CHECK(failed->job.status == JobStatus::failed);
  CHECK(failed->job.error_msg == "CA said no");
  CHECK(failed->job.next_run_at == fx.now() + 30s);
  CHECK(q.get("p1", j.id)->status == JobStatus::failed);
  CHECK_FALSE(q.claim(Lane::standard, at(fx.now(), "w2"))->claimed);

  fx.clock.advance(30s);
  REQUIRE(q.claim(Lane::standard, at(fx.now(), "w2"))->claimed);
  REQUIRE(q.apply(j.id, JobEvent::fail, at(fx.now(), "w2", "again")).ok());
  fx.clock.advance(60s);
  REQUIRE(q.claim(Lane::standard, at(fx.now(), "w3"))->claimed);
  const auto dead = q.apply(j.id, JobEvent::fail, at(fx.now(), "w3", "final"));
  REQUIRE(dead.ok());
  CHECK(dead->job.status == JobStatus::dead);
  CHECK(dead->raised == EventKind::job_failed);
  CHECK(dead->job.attempts == 3);

  const auto retried = q.apply(j.id, JobEvent::retry, at(fx.now(), ""));
  REQUIRE(retried.ok());
  CHECK(retried->job.status == JobStatus::pending);
  CHECK(retried->job.next_run_at == fx.now());
  CHECK(q.apply(fx.ids.next(), JobEvent::retry, at(fx.now(), "")).error().code ==
        ErrorCode::not_found);
}

TEST_CASE_TEMPLATE("job queue: expired locks are reclaimed, exhausted ones settled dead", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& q = fx.store->jobs();
  Job lastTry = makeJob(fx, "p1");
  lastTry.max_attempts = 1;
  lastTry.next_run_at = fx.now() - 1s;
  Job normal = makeJob(fx, "p1");
  REQUIRE(q.enqueue(lastTry).ok());
  REQUIRE(q.enqueue(normal).ok());
  REQUIRE(q.claim(Lane::standard, at(fx.now(), "crashed"))->claimed->id == lastTry.id);
  REQUIRE(q.claim(Lane::standard, at(fx.now(), "crashed"))->claimed->id == normal.id);

  fx.clock.advance(5min);  // both locks expire
  const auto c = q.claim(Lane::standard, at(fx.now(), "survivor"));
  REQUIRE(c.ok());
  REQUIRE(c->settled.size() == 1);
  CHECK(c->settled[0].job.id == lastTry.id);
  CHECK(c->settled[0].job.status == JobStatus::dead);
  CHECK(c->settled[0].raised == EventKind::job_failed);
  REQUIRE(c->claimed);
  CHECK(c->claimed->id == normal.id);
  CHECK(c->claimed->locked_by == "survivor");
  CHECK(c->claimed->attempts == 2);
  CHECK(q.get("p1", lastTry.id)->status == JobStatus::dead);
  // The crashed worker's late report is refused.
  CHECK_FALSE(q.apply(normal.id, JobEvent::succeed, at(fx.now(), "crashed")).ok());
  CHECK(q.apply(normal.id, JobEvent::succeed, at(fx.now(), "survivor")).ok());
}

TEST_CASE_TEMPLATE("job queue: a dismissed dead job is left out where dismissed ones are hidden",
                   F, CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& q = fx.store->jobs();
  std::vector<Id> dead;
  for (int i = 0; i < 2; ++i) {
    Job j = makeJob(fx, "p1");
    j.max_attempts = 1;
    REQUIRE(q.enqueue(j).ok());
    REQUIRE(q.claim(Lane::standard, at(fx.now()))->claimed->id == j.id);
    REQUIRE(q.apply(j.id, JobEvent::fail, at(fx.now(), "w1", "refused"))->job.status ==
            JobStatus::dead);
    dead.push_back(j.id);
  }
  fx.clock.advance(1min);
  const auto dismissed = q.apply(dead[0], JobEvent::dismiss, at(fx.now(), ""));
  REQUIRE(dismissed.ok());
  CHECK(dismissed->job.status == JobStatus::dead);
  CHECK(dismissed->job.dismissed_at == fx.now());
  CHECK(q.get("p1", dead[0])->dismissed_at == fx.now());  // stored
  CHECK(q.apply(dead[0], JobEvent::dismiss, at(fx.now(), "")).error().code ==
        ErrorCode::failed_precondition);

  ports::JobFilter shown;
  shown.status = JobStatus::dead;
  shown.hide_dismissed = true;
  auto page = q.list("p1", shown, fx.page());
  REQUIRE(page.ok());
  CHECK(page->total == 1);
  REQUIRE(page->items.size() == 1);
  CHECK(page->items[0].id == dead[1]);
  ports::JobFilter everything;
  everything.status = JobStatus::dead;
  CHECK(q.list("p1", everything, fx.page())->total == 2);

  // A retry clears the mark: the job shows again wherever it is listed.
  REQUIRE(q.apply(dead[0], JobEvent::retry, at(fx.now(), "")).ok());
  CHECK_FALSE(q.get("p1", dead[0])->dismissed_at);
  ports::JobFilter pendingShown;
  pendingShown.status = JobStatus::pending;
  pendingShown.hide_dismissed = true;
  CHECK(q.list("p1", pendingShown, fx.page())->total == 1);
}

TEST_CASE_TEMPLATE("job queue: cancel and shutdown release", F, CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& q = fx.store->jobs();
  const Job pending = makeJob(fx, "p1");
  const Job running = makeJob(fx, "p1");
  REQUIRE(q.enqueue(pending).ok());
  REQUIRE(q.apply(pending.id, JobEvent::cancel, at(fx.now(), "")).ok());
  CHECK(q.get("p1", pending.id)->status == JobStatus::cancelled);

  REQUIRE(q.enqueue(running).ok());
  REQUIRE(q.claim(Lane::standard, at(fx.now(), "w1"))->claimed);
  const auto requested = q.apply(running.id, JobEvent::cancel, at(fx.now(), ""));
  REQUIRE(requested.ok());
  CHECK(requested->job.status == JobStatus::active);
  const auto hb = q.apply(running.id, JobEvent::heartbeat, at(fx.now(), "w1"));
  REQUIRE(hb.ok());
  CHECK(hb->job.cancel_requested);  // the heartbeat sees the request
  REQUIRE(q.apply(running.id, JobEvent::cancel_observed, at(fx.now(), "w1")).ok());
  CHECK(q.get("p1", running.id)->status == JobStatus::cancelled);

  const Job inflight = makeJob(fx, "p1");
  REQUIRE(q.enqueue(inflight).ok());
  REQUIRE(q.claim(Lane::standard, at(fx.now(), "w1"))->claimed);
  fx.clock.advance(55s);
  const auto released = q.apply(inflight.id, JobEvent::shutdown_release, at(fx.now(), "w1"));
  REQUIRE(released.ok());
  CHECK(released->job.status == JobStatus::pending);
  CHECK(released->job.attempts == 0);
  CHECK(released->job.locked_by.empty());
  CHECK_FALSE(released->job.lock_expires_at);
  CHECK(released->job.next_run_at == fx.now());
}

TEST_CASE_TEMPLATE("job queue: concurrent workers never hold the same job", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& q = fx.store->jobs();
  constexpr int kJobs = 2000;
  for (int i = 0; i < kJobs; ++i)
    REQUIRE(q.enqueue(makeJob(fx, "p1")).ok());
  std::mutex mu;
  std::map<Id, int> completions;
  std::atomic<int> failures{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&, w] {
      const std::string name = "worker-" + std::to_string(w);
      for (int guard = 0; guard < kJobs * 2; ++guard) {  // bounded loop
        auto c = q.claim(Lane::standard, at(fx.now(), name));
        if (!c.ok()) {
          ++failures;
          continue;
        }
        if (!c->claimed) return;
        if (!q.apply(c->claimed->id, JobEvent::succeed, at(fx.now(), name)).ok()) ++failures;
        std::lock_guard lock(mu);
        ++completions[c->claimed->id];
      }
    });
  }
  for (auto& t : workers)
    t.join();
  CHECK(failures == 0);
  CHECK(completions.size() == kJobs);
  for (const auto& [id, n] : completions)
    CHECK(n == 1);
  ports::JobFilter done;
  done.status = JobStatus::completed;
  CHECK(q.list("p1", done, fx.page())->total == kJobs);
}

TEST_CASE_TEMPLATE("job logs: lines are kept per job in write order and paged", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& logs = fx.store->jobLogs();
  for (int i = 0; i < 25; ++i) {
    REQUIRE(logs.append({"job-a", fx.now() + std::chrono::seconds{i},
                         i == 3 ? LogLevel::error : LogLevel::info, "step " + std::to_string(i)})
                .ok());
  }
  REQUIRE(logs.append({"job-b", fx.now(), LogLevel::info, "other"}).ok());
  const auto p1 = logs.list("job-a", fx.page(1, 20));
  REQUIRE(p1.ok());
  CHECK(p1->total == 25);
  CHECK(p1->items.size() == 20);
  CHECK(p1->items[0].message == "step 0");
  CHECK(p1->items[3].level == LogLevel::error);
  const auto p2 = logs.list("job-a", fx.page(2, 20));
  REQUIRE(p2->items.size() == 5);
  CHECK(p2->items[4].message == "step 24");
  CHECK(p2->items[4].ts == fx.now() + 24s);
  CHECK(logs.list("unknown", fx.page())->total == 0);
}

TEST_CASE_TEMPLATE("events: kept per project, newest first, paged", F,
                   CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& events = fx.store->events();
  std::vector<Id> ids;
  for (int i = 0; i < 23; ++i) {
    Event e;
    e.id = fx.ids.next();
    e.kind = i % 2 == 0 ? EventKind::job_failed : EventKind::cert_renewal_failed;
    e.project_id = "p1";
    e.resource_id = "r" + std::to_string(i);
    e.message = "failure " + std::to_string(i) + " — ünïcode kept";
    e.at = fx.now() + std::chrono::seconds{i / 2};  // pairs share a timestamp: ids break ties
    REQUIRE(events.record(e).ok());
    ids.push_back(e.id);
  }
  Event other{fx.ids.next(), EventKind::cert_expiring_soon, "p2", "c9", "other project", fx.now()};
  REQUIRE(events.record(other).ok());

  const auto p1 = events.list("p1", fx.page(1, 20));
  REQUIRE(p1.ok());
  CHECK(p1->total == 23);
  REQUIRE(p1->items.size() == 20);
  CHECK(p1->items[0].id == ids[22]);
  CHECK(p1->items[0].resource_id == "r22");
  CHECK(p1->items[0].kind == EventKind::job_failed);
  CHECK(p1->items[0].message == "failure 22 — ünïcode kept");
  CHECK(p1->items[0].at == fx.now() + 11s);
  CHECK(p1->items[1].id == ids[21]);  // same second as 20: the larger id first
  CHECK(p1->items[1].kind == EventKind::cert_renewal_failed);
  CHECK(p1->items[2].id == ids[20]);
  const auto p2 = events.list("p1", fx.page(2, 20));
  REQUIRE(p2.ok());
  REQUIRE(p2->items.size() == 3);
  CHECK(p2->items[2].id == ids[0]);
  const auto theirs = events.list("p2", fx.page());
  REQUIRE(theirs.ok());
  REQUIRE(theirs->items.size() == 1);
  CHECK(theirs->items[0].kind == EventKind::cert_expiring_soon);
  CHECK(theirs->items[0].project_id == "p2");
  CHECK(events.list("unknown", fx.page())->total == 0);
}

TEST_CASE_TEMPLATE("job queue: counts by type and status", F, CERTSTEWARD_STORE_FACTORIES) {
  testing::StoreFixture<F> fx;
  auto& q = fx.store->jobs();
  for (int i = 0; i < 3; ++i)
    REQUIRE(q.enqueue(makeJob(fx, "p1")).ok());
  REQUIRE(q.enqueue(makeJob(fx, "p2", JobType::cleanup_dns)).ok());
  const Job done = makeJob(fx, "p1");
  REQUIRE(q.enqueue(done).ok());
  REQUIRE(q.apply(done.id, JobEvent::cancel, at(fx.now(), "")).ok());
  const auto counts = q.countByTypeAndStatus();
  REQUIRE(counts.ok());
  CHECK(counts->at({JobType::issue_certificate, JobStatus::pending}) == 3);
  CHECK(counts->at({JobType::issue_certificate, JobStatus::cancelled}) == 1);
  CHECK(counts->at({JobType::cleanup_dns, JobStatus::pending}) == 1);
  CHECK(counts->count({JobType::renew_certificate, JobStatus::pending}) == 0);
}
