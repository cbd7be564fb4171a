// The app's WorkerPool over the issuance worker (shared fixture: a scripted CA on the memory
// store and the real clock): stop waits for a job that finishes within the shutdown wait, and
// past it a running job is released to pending, uncounted.
#include <doctest/doctest.h>

#include <chrono>

#include <certsteward/adapters/runtime/worker_pool.hpp>
#include "services/issuance_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;
using namespace std::chrono_literals;
using namespace certsteward::issuance_test;

TEST_CASE("worker pool: stop waits for a running job that finishes within the shutdown wait") {
  Fixture fx;
  fx.ca.delay = 300ms;
  adapters::runtime::WorkerPool pool(fx.worker, Lane::standard, 1, 20ms, 5s, "test");
  pool.start();
  REQUIRE(waitUntilActive(fx));
  pool.stop();
  CHECK(fx.storedJob().status == JobStatus::completed);
  CHECK(fx.ca.stopsSeen() == 0);
  CHECK(fx.storedCert().status == CertificateStatus::active);
}

TEST_CASE("worker pool: past the shutdown wait a running job is released to pending") {
  Fixture fx;
  fx.ca.delay = 60s;
  adapters::runtime::WorkerPool pool(fx.worker, Lane::standard, 2, 20ms, 300ms, "test");
  pool.start();
  REQUIRE(waitUntilActive(fx));
  const auto before = std::chrono::steady_clock::now();
  pool.stop();
  // Bounded: the wait (300 ms) plus the attempt's next step, far below the CA's 60 s.
  CHECK(std::chrono::steady_clock::now() - before < 20s);
  const auto job = fx.storedJob();
  CHECK(job.status == JobStatus::pending);
  CHECK(job.attempts == 0);
  CHECK(job.locked_by.empty());
  CHECK(fx.ca.stopsSeen() == 1);
  CHECK(logMentions(fx, "the worker stopped before the attempt finished"));
}
