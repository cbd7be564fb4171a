// JobService in process: retry and cancel through the job table with their roles, the retry
// limit of 20 a minute, another project's job invisible, every transition audited, and a retried
// renewal that takes its certificate back from renewal_failed.
#include <doctest/doctest.h>

#include <certsteward/services/abandoned_locks.hpp>
#include <certsteward/services/job_service.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

struct JobFixture : testing::ServiceFixture {
  JobService jobs{{store.jobs(), store.jobLogs(), store.events(), store.rateLimits(), clock,
                   store.certificates()},
                  work,
                  access,
                  audit};
  JobFixture() {
    project("p1");
    project("p2");
  }
  Job queued(const Id& projectId, JobStatus status) {
    Job j = newJob(ids.next(), projectId, JobType::renew_certificate, clock.now());
    j.status = status;
    if (status == JobStatus::dead) j.attempts = 3;
    REQUIRE(store.jobs().enqueue(j).ok());
    return j;
  }
};

}  // namespace

TEST_CASE("jobs: retry and cancel follow the job table and are audited") {
  JobFixture fx;
  const auto dead = fx.queued("p1", JobStatus::dead);
  auto retried = fx.jobs.retry(fx.owner(), fx.ctx(), "p1", dead.id);
  REQUIRE(retried.ok());
  CHECK(retried->status == JobStatus::pending);
  CHECK(retried->attempts == 0);
  CHECK(fx.audited("job.retry").size() == 1);

  auto cancelled = fx.jobs.cancel(fx.owner(), fx.ctx(), "p1", dead.id);
  REQUIRE(cancelled.ok());
  CHECK(cancelled->status == JobStatus::cancelled);
  // Nothing moves a cancelled job but a retry; a second cancel is refused and not audited.
  auto again = fx.jobs.cancel(fx.owner(), fx.ctx(), "p1", dead.id);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().code == ErrorCode::failed_precondition);
  CHECK(fx.audited("job.cancel").size() == 1);
}

TEST_CASE("jobs: an operator dismisses a dead job once, audited, and nothing else is dismissed") {
  JobFixture fx;
  const auto operatorUser = fx.member("p1", ProjectRole::operator_);
  const auto viewer = fx.member("p1", ProjectRole::viewer);
  const auto dead = fx.queued("p1", JobStatus::dead);
  const auto failed = fx.queued("p1", JobStatus::failed);
  CHECK(fx.jobs.dismiss(viewer, fx.ctx(), "p1", dead.id).error().code ==
        ErrorCode::permission_denied);
  const auto outsider = fx.member("p2", ProjectRole::admin);
  CHECK(fx.jobs.dismiss(outsider, fx.ctx(), "p1", dead.id).error().code == ErrorCode::not_found);
  CHECK(fx.jobs.dismiss(outsider, fx.ctx(), "p2", dead.id).error().code == ErrorCode::not_found);
  CHECK(fx.audited("job.dismiss").empty());

  auto dismissed = fx.jobs.dismiss(operatorUser, fx.ctx(), "p1", dead.id);
  REQUIRE(dismissed.ok());
  CHECK(dismissed->status == JobStatus::dead);
  CHECK(dismissed->dismissed_at == fx.clock.now());
  const auto entries = fx.audited("job.dismiss");
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].resource_id == dead.id);

  CHECK(fx.jobs.dismiss(operatorUser, fx.ctx(), "p1", dead.id).error().code ==
        ErrorCode::failed_precondition);
  CHECK(fx.jobs.dismiss(operatorUser, fx.ctx(), "p1", failed.id).error().code ==
        ErrorCode::failed_precondition);
  CHECK(fx.audited("job.dismiss").size() == 1);
}

TEST_CASE("jobs: an operator cancels, only a project admin retries, other projects see 404") {
  JobFixture fx;
  const auto operatorUser = fx.member("p1", ProjectRole::operator_);
  const auto pending = fx.queued("p1", JobStatus::pending);
  const auto dead = fx.queued("p1", JobStatus::dead);
  CHECK(fx.jobs.cancel(operatorUser, fx.ctx(), "p1", pending.id).ok());
  CHECK(fx.jobs.retry(operatorUser, fx.ctx(), "p1", dead.id).error().code ==
        ErrorCode::permission_denied);
  CHECK(fx.store.jobs().get("p1", dead.id)->status == JobStatus::dead);
  const auto outsider = fx.member("p2", ProjectRole::admin);
  CHECK(fx.jobs.retry(outsider, fx.ctx(), "p1", dead.id).error().code == ErrorCode::not_found);
  // A job id of p1 asked for under p2 is not found either.
  CHECK(fx.jobs.retry(outsider, fx.ctx(), "p2", dead.id).error().code == ErrorCode::not_found);
}

TEST_CASE("jobs: at most 20 retries a minute per user") {
  JobFixture fx;
  const auto who = fx.owner();
  int accepted = 0;
  std::optional<Error> refused;
  for (int i = 0; i < 22; ++i) {
    const auto dead = fx.queued("p1", JobStatus::dead);
    auto r = fx.jobs.retry(who, fx.ctx(), "p1", dead.id);
    if (r) {
      ++accepted;
    } else {
      refused = r.error();
    }
  }
  CHECK(accepted == 20);
  REQUIRE(refused.has_value());
  CHECK(refused->code == ErrorCode::resource_exhausted);
  CHECK(refused->reason == "RATE_LIMITED");
  fx.clock.advance(std::chrono::minutes{1});
  CHECK(fx.jobs.retry(who, fx.ctx(), "p1", fx.queued("p1", JobStatus::dead).id).ok());
}

TEST_CASE("jobs: a dead renewal retried takes its certificate back from renewal_failed") {
  JobFixture fx;
  Certificate cert;
  cert.id = fx.ids.next();
  cert.project_id = "p1";
  cert.common_name = "www.example.com";
  cert.sans = {"www.example.com"};
  cert.status = CertificateStatus::renewal_failed;
  cert.renewal_attempts = 2;
  cert.last_error = "the DNS server did not accept the TSIG key";
  REQUIRE(fx.store.certificates().create(cert).ok());
  Job j = newJob(fx.ids.next(), "p1", JobType::renew_certificate, fx.clock.now());
  j.certificate_id = cert.id;
  j.status = JobStatus::dead;
  j.attempts = 2;
  REQUIRE(fx.store.jobs().enqueue(j).ok());

  auto retried = fx.jobs.retry(fx.owner(), fx.ctx(), "p1", j.id);
  REQUIRE_MESSAGE(retried.ok(), retried.error().message);
  CHECK(retried->status == JobStatus::pending);
  // As a manual renewal would: the worker's renewal_started and renewed now apply.
  auto after = *fx.store.certificates().get("p1", cert.id);
  CHECK(after.status == CertificateStatus::renewal_pending);
  CHECK(applyCertificateEvent(after, CertificateEvent::renewal_started,
                              CertificateContext{fx.clock.now(), "", {}, {}, false, {}})
            .ok());
}

TEST_CASE(
    "jobs: an instance started again releases at once the locks its killed run held, and only "
    "those") {
  JobFixture fx;
  const auto claimAs = [&](const std::string& worker) {
    const JobContext c{fx.clock.now(), worker, "", JobPolicy{}};
    auto claimed = fx.store.jobs().claim(Lane::standard, c);
    REQUIRE(claimed.ok());
    return claimed->claimed;
  };
  const auto mine = fx.queued("p1", JobStatus::pending);
  const auto other = fx.queued("p2", JobStatus::pending);
  REQUIRE(claimAs("host-a:8080#0badb007/default-0"));  // the run that is killed
  REQUIRE(claimAs("host-b:8080#12345678/default-0"));  // another instance, alive
  // Nothing is claimable while their locks are live.
  CHECK_FALSE(claimAs("host-c:8080#aaaaaaaa/default-0"));

  // A run that cannot be proved over (still draining, another container) is left alone.
  const auto proved = [](std::string_view run) { return run == "0badb007"; };
  const auto unproved = [](std::string_view) { return false; };
  auto released = releaseAbandonedLocks(fx.store.projects(), fx.store.jobs(), fx.clock,
                                        "host-a:8080#feedf00d", unproved);
  REQUIRE(released.ok());
  CHECK(*released == 0);
  CHECK_FALSE(claimAs("host-c:8080#aaaaaaaa/default-1"));
  released = releaseAbandonedLocks(fx.store.projects(), fx.store.jobs(), fx.clock,
                                   "host-a:8080#feedf00d", proved);
  REQUIRE(released.ok());
  CHECK(*released == 1);
  // The next claim takes the killed run's job again (a new attempt), never the live one's.
  const auto again = claimAs("host-a:8080#feedf00d/default-0");
  REQUIRE(again);
  CHECK(again->id == mine.id);
  CHECK(again->attempts == 2);
  CHECK(again->locked_by == "host-a:8080#feedf00d/default-0");
  CHECK_FALSE(claimAs("host-a:8080#feedf00d/default-1"));
  CHECK(fx.store.jobs().get("p2", other.id)->locked_by == "host-b:8080#12345678/default-0");
  // Run again by the same run: nothing more to release.
  CHECK(*releaseAbandonedLocks(fx.store.projects(), fx.store.jobs(), fx.clock,
                               "host-a:8080#feedf00d", proved) == 0);
}

TEST_CASE("jobs: the list and a job name its certificate") {
  JobFixture fx;
  const Id zone = fx.servedZone("p1");
  (void)zone;
  CertificateRequest request;
  request.common_name = "api.example.com";
  auto created = fx.certificates.create(fx.owner(), fx.ctx(), "p1", request);
  REQUIRE(created.ok());
  const Job unrelated = fx.queued("p1", JobStatus::pending);  // no certificate
  const auto viewer = fx.member("p1", ProjectRole::viewer);
  auto page = fx.jobs.list(viewer, "p1", {}, {1, 10});
  REQUIRE(page.ok());
  int named = 0;
  for (const auto& j : page->items) {
    CAPTURE(j.id);
    if (j.id == unrelated.id) {
      CHECK(j.certificate_name.empty());
    } else {
      CHECK(j.certificate_id == std::optional<Id>(created->certificate.id));
      CHECK(j.certificate_name == "api.example.com");
      ++named;
    }
  }
  CHECK(named == 1);  // the issuance job
  auto one = fx.jobs.get(viewer, "p1", created->job.id);
  REQUIRE(one.ok());
  CHECK(one->certificate_name == "api.example.com");
}
