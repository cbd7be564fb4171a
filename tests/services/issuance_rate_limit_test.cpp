// The issuance worker and the CA's quotas: a rateLimited answer's Retry-After holds the job and
// every job ordering the same registered domain through the same account, renewals held back
// keep their certificate's state, and orders, issued certificates and failed validations are
// counted per registered domain.
#include <doctest/doctest.h>

#include "services/issuance_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;
using namespace certsteward::issuance_test;
using namespace std::chrono_literals;

TEST_CASE(
    "issuance worker: the CA's Retry-After holds the job, and every job ordering that registered "
    "domain through the same account, until it passes") {
  Fixture fx;
  fx.ca.failure =
      makeError(ErrorCode::resource_exhausted,
                "CA refused the order: too many certificates (rateLimited)", "rateLimited");
  fx.ca.retryAfter = 1h;
  const auto before = fx.clock.now();
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  const auto failed = fx.storedJob();
  CHECK(failed.status == JobStatus::failed);
  CHECK(failed.attempts == 1);
  CHECK(failed.next_run_at >= before + 1h);  // not the 200 ms backoff
  CHECK(failed.next_run_at <= fx.clock.now() + 1h);
  CHECK(fx.ca.orders() == 1);
  CHECK(fx.counted("example.test", CaActivityKind::order_created) == 1);
  CHECK(fx.counted("example.test", CaActivityKind::rate_limited) == 1);
  CHECK(fx.counted("example.test", CaActivityKind::certificate_issued) == 0);
  CHECK(fx.logged(fx.job.id, "the CA asks not to retry before"));

  // Another certificate under the same registered domain: nothing goes to the CA, the job waits
  // for the same instant without spending an attempt.
  fx.ca.failure.reset();
  const Job held = fx.queueAnother({"api.example.test"});
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-b"));
  const auto waiting = *fx.store.jobs().get("p1", held.id);
  CHECK(waiting.status == JobStatus::pending);
  CHECK(waiting.attempts == 0);
  CHECK(waiting.next_run_at == failed.next_run_at);
  CHECK(waiting.error_msg.find("rate limit for example.test holds until") != std::string::npos);
  CHECK(fx.ca.orders() == 1);
  CHECK(fx.logged(held.id, "the attempt is not counted"));
  CHECK_FALSE(*fx.worker.runOnce(Lane::standard, "worker-b"));  // nothing else is due

  // A name under another registered domain is not held back.
  const Job free = fx.queueAnother({"www.example.org"});
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-b"));
  CHECK(fx.store.jobs().get("p1", free.id)->status == JobStatus::completed);
  CHECK(fx.ca.orders() == 2);

  // Nor is another project ordering the same registered domain through its own account: one
  // tenant's refusals never hold back another's orders.
  AcmeAccount theirs;
  theirs.id = fx.ids.next();
  theirs.project_id = "p2";
  theirs.name = "theirs";
  theirs.directory_url = "https://ca.test/dir";
  REQUIRE(fx.store.acmeAccounts().create(theirs).ok());
  Certificate other;
  other.id = fx.ids.next();
  other.project_id = "p2";
  other.common_name = "shop.example.test";
  other.sans = {"shop.example.test"};
  REQUIRE(fx.store.certificates().create(other).ok());
  Job otherJob = newJob(fx.ids.next(), "p2", JobType::issue_certificate, fx.clock.now(), fx.policy);
  otherJob.certificate_id = other.id;
  REQUIRE(fx.store.jobs().enqueue(otherJob).ok());
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-c"));
  CHECK(fx.store.jobs().get("p2", otherJob.id)->status == JobStatus::completed);
  CHECK(fx.ca.orders() == 3);
}

TEST_CASE(
    "issuance worker: a renewal held back by a CA rate limit leaves the certificate as it is") {
  Fixture fx;
  const auto cert = fx.awaitingRenewal();
  const auto account = *fx.store.acmeAccounts().list("p1", PageRequest{1, 1});
  CaActivity refusal;
  refusal.id = fx.ids.next();
  refusal.directory_url = "https://ca.test/dir";
  refusal.registered_domain = "example.test";
  refusal.kind = CaActivityKind::rate_limited;
  refusal.at = fx.clock.now();
  refusal.project_id = "p1";
  refusal.account_id = account.items.front().id;
  refusal.retry_until = fx.clock.now() + 1h;
  refusal.detail = "too many certificates";
  REQUIRE(fx.store.caActivity().record(refusal).ok());
  Job renewal = newJob("renew-1", "p1", JobType::renew_certificate, fx.clock.now(), fx.policy);
  renewal.certificate_id = cert.id;
  REQUIRE(fx.store.jobs().enqueue(renewal).ok());
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  const auto held = *fx.store.jobs().get("p1", "renew-1");
  CHECK(held.status == JobStatus::pending);
  CHECK(held.attempts == 0);
  CHECK(fx.ca.orders() == 0);
  const auto after = fx.storedCert();
  CHECK(after.status == CertificateStatus::renewal_pending);  // not renewal_in_progress
  CHECK(after.renewal_attempts == cert.renewal_attempts);
}

TEST_CASE(
    "issuance worker: a rateLimited answer without Retry-After keeps the usual backoff and "
    "holds nothing back") {
  Fixture fx;
  fx.ca.failure = makeError(ErrorCode::resource_exhausted, "too many orders", "rateLimited");
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  const auto failed = fx.storedJob();
  CHECK(failed.status == JobStatus::failed);
  CHECK(failed.next_run_at <= fx.clock.now() + fx.policy.backoff_base);
  CHECK(fx.counted("example.test", CaActivityKind::rate_limited) == 1);
  fx.ca.failure.reset();
  const Job next = fx.queueAnother({"api.example.test"});
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-b"));
  CHECK(fx.store.jobs().get("p1", next.id)->status == JobStatus::completed);
}

TEST_CASE(
    "issuance worker: orders, issued certificates and failed validations are counted per "
    "registered domain") {
  Fixture fx;
  const Job both = fx.queueAnother({"www.example.co.uk", "shop.example.co.uk", "www.example.org"});
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));  // the fixture's own job
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  CHECK(fx.store.jobs().get("p1", both.id)->status == JobStatus::completed);
  CHECK(fx.counted("example.test", CaActivityKind::order_created) == 1);
  CHECK(fx.counted("example.test", CaActivityKind::certificate_issued) == 1);
  CHECK(fx.counted("example.co.uk", CaActivityKind::order_created) == 1);  // once per order
  CHECK(fx.counted("example.co.uk", CaActivityKind::certificate_issued) == 1);
  CHECK(fx.counted("example.org", CaActivityKind::certificate_issued) == 1);

  fx.ca.failure = makeError(ErrorCode::failed_precondition, "the CA could not validate", "");
  fx.ca.failingValidations = {"bad.example.net"};
  fx.queueAnother({"bad.example.net"});
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  CHECK(fx.counted("example.net", CaActivityKind::order_created) == 1);
  CHECK(fx.counted("example.net", CaActivityKind::validation_failed) == 1);
  CHECK(fx.counted("example.net", CaActivityKind::certificate_issued) == 0);
}
