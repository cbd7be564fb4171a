// The job state machine, row by row, and the numbers of the job table (docs/architecture.md).
#include <doctest/doctest.h>

#include <functional>

#include <certsteward/domain/job.hpp>

using namespace certsteward::domain;
using namespace std::chrono_literals;

namespace {

const Timestamp kNow = Timestamp{std::chrono::days{20000}};

Job jobIn(JobStatus status, int attempts = 1) {
  Job job = newJob("0123456789abcdef01234567", "p1", JobType::renew_certificate, kNow - 1h);
  job.status = status;
  job.attempts = attempts;
  if (status == JobStatus::active) {
    job.locked_by = "w1";
    job.lock_expires_at = kNow + 1min;
  }
  return job;
}

JobContext ctx(std::string worker = "w1", std::string error = {}) {
  return JobContext{kNow, std::move(worker), std::move(error), JobPolicy{}};
}

// A context carrying the CA's Retry-After.
JobContext notBefore(Timestamp until, std::string error = "rate limited") {
  JobContext c = ctx("w1", std::move(error));
  c.not_before = until;
  return c;
}

}  // namespace

TEST_CASE("job: the policy defaults are the spec's numbers") {
  const JobPolicy p;
  CHECK(p.max_attempts == 3);
  CHECK(p.lock_ttl == 5min);
  CHECK(p.backoff_base == 30s);
  CHECK(p.backoff_cap == 10min);
  CHECK(p.poll_interval == 2s);
  CHECK(p.shutdown_wait == 55s);
  CHECK(newJob("a", "p", JobType::cleanup_dns, kNow).max_attempts == 3);
}

TEST_CASE("job: an attempt failure schedules a retry at 30 s x 2^(n-1), capped at 10 min") {
  const struct {
    int attempts;
    Duration delay;
  } rows[] = {{0, 30s},  {1, 30s},  {2, 60s},  {3, 120s}, {4, 240s},
              {5, 480s}, {6, 600s}, {7, 600s}, {40, 600s}};
  for (const auto& row : rows) {
    CAPTURE(row.attempts);
    CHECK(retryBackoff(row.attempts) == row.delay);
  }
}

TEST_CASE("job: every transition of the table, with its guard and effect") {
  struct Row {
    const char* name;
    std::function<Job()> start;
    JobEvent event;
    JobContext context;
    bool ok;
    JobStatus expected;
    std::function<void(const Job&)> check;
    std::optional<EventKind> raised;
  };
  const auto noCheck = [](const Job&) {};
  std::vector<Row> rows{
      {"pending job that is due is claimed", [] { return jobIn(JobStatus::pending, 0); },
       JobEvent::claim, ctx("w2"), true, JobStatus::active,
       [](const Job& j) {
         CHECK(j.locked_by == "w2");
         CHECK(j.lock_expires_at == kNow + 5min);
         CHECK(j.attempts == 1);
       },
       std::nullopt},
      {"pending job not yet due is not claimed",
       [] {
         auto j = jobIn(JobStatus::pending, 0);
         j.next_run_at = kNow + 1s;
         return j;
       },
       JobEvent::claim, ctx("w2"), false, JobStatus::pending, noCheck, std::nullopt},
      {"failed job is claimed once its backoff passed",
       [] {
         auto j = jobIn(JobStatus::failed, 1);
         j.next_run_at = kNow;
         return j;
       },
       JobEvent::claim, ctx("w3"), true, JobStatus::active,
       [](const Job& j) { CHECK(j.attempts == 2); }, std::nullopt},
      {"failed job inside its backoff is not claimed",
       [] {
         auto j = jobIn(JobStatus::failed, 1);
         j.next_run_at = kNow + 10s;
         return j;
       },
       JobEvent::claim, ctx("w3"), false, JobStatus::failed, noCheck, std::nullopt},
      {"an expired lock is reclaimed by another worker",
       [] {
         auto j = jobIn(JobStatus::active, 1);
         j.lock_expires_at = kNow - 1s;
         return j;
       },
       JobEvent::reclaim, ctx("w9"), true, JobStatus::active,
       [](const Job& j) {
         CHECK(j.locked_by == "w9");
         CHECK(j.attempts == 2);
         CHECK(j.lock_expires_at == kNow + 5min);
       },
       std::nullopt},
      {"a live lock is not reclaimed", [] { return jobIn(JobStatus::active, 1); },
       JobEvent::reclaim, ctx("w9"), false, JobStatus::active, noCheck, std::nullopt},
      {"an expired lock on the last attempt makes the job dead",
       [] {
         auto j = jobIn(JobStatus::active, 3);
         j.lock_expires_at = kNow - 1s;
         return j;
       },
       JobEvent::reclaim, ctx("w9"), true, JobStatus::dead,
       [](const Job& j) {
         CHECK(j.locked_by.empty());
         CHECK_FALSE(j.error_msg.empty());
       },
       EventKind::job_failed},
      {"an expired lock with a cancel request ends cancelled",
       [] {
         auto j = jobIn(JobStatus::active, 1);
         j.lock_expires_at = kNow - 1s;
         j.cancel_requested = true;
         return j;
       },
       JobEvent::reclaim, ctx("w9"), true, JobStatus::cancelled, noCheck, std::nullopt},
      {"the heartbeat of the holder extends the lock", [] { return jobIn(JobStatus::active); },
       JobEvent::heartbeat, ctx("w1"), true, JobStatus::active,
       [](const Job& j) { CHECK(j.lock_expires_at == kNow + 5min); }, std::nullopt},
      {"the heartbeat of another worker is refused", [] { return jobIn(JobStatus::active); },
       JobEvent::heartbeat, ctx("w2"), false, JobStatus::active, noCheck, std::nullopt},
      {"a heartbeat after the lock expired is refused (the job may be reclaimed)",
       [] {
         auto j = jobIn(JobStatus::active);
         j.lock_expires_at = kNow - 1s;
         return j;
       },
       JobEvent::heartbeat, ctx("w1"), false, JobStatus::active, noCheck, std::nullopt},
      {"success completes the job and clears the lock", [] { return jobIn(JobStatus::active); },
       JobEvent::succeed, ctx("w1"), true, JobStatus::completed,
       [](const Job& j) {
         CHECK(j.locked_by.empty());
         CHECK_FALSE(j.lock_expires_at);
         CHECK(j.finished_at == kNow);
       },
       std::nullopt},
      {"success reported by a worker that lost the lock is refused",
       [] { return jobIn(JobStatus::active); }, JobEvent::succeed, ctx("w2"), false,
       JobStatus::active, noCheck, std::nullopt},
      {"a failed first attempt retries after 30 s", [] { return jobIn(JobStatus::active, 1); },
       JobEvent::fail, ctx("w1", "CA unreachable"), true, JobStatus::failed,
       [](const Job& j) {
         CHECK(j.next_run_at == kNow + 30s);
         CHECK(j.error_msg == "CA unreachable");
         CHECK(j.locked_by.empty());
       },
       std::nullopt},
      {"a failed second attempt retries after 60 s", [] { return jobIn(JobStatus::active, 2); },
       JobEvent::fail, ctx("w1", "x"), true, JobStatus::failed,
       [](const Job& j) { CHECK(j.next_run_at == kNow + 60s); }, std::nullopt},
      {"a failure with the CA's Retry-After retries no sooner than it",
       [] { return jobIn(JobStatus::active, 1); }, JobEvent::fail, notBefore(kNow + 1h), true,
       JobStatus::failed, [](const Job& j) { CHECK(j.next_run_at == kNow + 1h); }, std::nullopt},
      {"a Retry-After shorter than the backoff leaves the backoff",
       [] { return jobIn(JobStatus::active, 2); }, JobEvent::fail, notBefore(kNow + 5s), true,
       JobStatus::failed, [](const Job& j) { CHECK(j.next_run_at == kNow + 60s); }, std::nullopt},
      {"a job held back by a CA rate limit waits for it, its attempt refunded",
       [] { return jobIn(JobStatus::active, 2); }, JobEvent::defer,
       notBefore(kNow + 2h, "limit holds"), true, JobStatus::pending,
       [](const Job& j) {
         CHECK(j.attempts == 1);
         CHECK(j.next_run_at == kNow + 2h);
         CHECK(j.error_msg == "limit holds");
         CHECK(j.locked_by.empty());
         CHECK_FALSE(j.lock_expires_at);
       },
       std::nullopt},
      {"a cancel asked while the job was held back ends it cancelled",
       [] {
         auto j = jobIn(JobStatus::active, 1);
         j.cancel_requested = true;
         return j;
       },
       JobEvent::defer, notBefore(kNow + 1h), true, JobStatus::cancelled,
       [](const Job& j) {
         CHECK(j.finished_at == kNow);
         CHECK(j.locked_by.empty());
       },
       std::nullopt},
      {"a deferral by a worker that lost the lock is refused",
       [] { return jobIn(JobStatus::active, 1); }, JobEvent::defer,
       [] {
         auto c = notBefore(kNow + 1h);
         c.worker = "w2";
         return c;
       }(),
       false, JobStatus::active, noCheck, std::nullopt},
      {"a pending job cannot be deferred", [] { return jobIn(JobStatus::pending, 0); },
       JobEvent::defer, notBefore(kNow + 1h), false, JobStatus::pending, noCheck, std::nullopt},
      {"a failed last attempt makes the job dead and raises job.failed",
       [] { return jobIn(JobStatus::active, 3); }, JobEvent::fail, ctx("w1", "final"), true,
       JobStatus::dead,
       [](const Job& j) {
         CHECK(j.error_msg == "final");
         CHECK(j.finished_at == kNow);
       },
       EventKind::job_failed},
      {"a failure retrying cannot help (outside policy) ends dead with attempts left",
       [] { return jobIn(JobStatus::active, 1); }, JobEvent::fail,
       [] {
         auto c = ctx("w1", "outside the project's policy");
         c.final_failure = true;
         return c;
       }(),
       true, JobStatus::dead,
       [](const Job& j) {
         CHECK(j.attempts == 1);
         CHECK(j.finished_at == kNow);
         CHECK(j.error_msg == "outside the project's policy");
       },
       EventKind::job_failed},
      {"a failure after a cancel request ends cancelled",
       [] {
         auto j = jobIn(JobStatus::active, 1);
         j.cancel_requested = true;
         return j;
       },
       JobEvent::fail, ctx("w1", "stopped"), true, JobStatus::cancelled, noCheck, std::nullopt},
      {"the shutdown deadline returns the job to pending, attempt refunded",
       [] { return jobIn(JobStatus::active, 2); }, JobEvent::shutdown_release, ctx("w1"), true,
       JobStatus::pending,
       [](const Job& j) {
         CHECK(j.attempts == 1);
         CHECK(j.locked_by.empty());
         CHECK_FALSE(j.lock_expires_at);
         CHECK(j.next_run_at == kNow);
       },
       std::nullopt},
      {"cancel of a pending job is immediate", [] { return jobIn(JobStatus::pending, 0); },
       JobEvent::cancel, ctx(""), true, JobStatus::cancelled,
       [](const Job& j) { CHECK(j.finished_at == kNow); }, std::nullopt},
      {"cancel of a failed job waiting for its retry is immediate",
       [] { return jobIn(JobStatus::failed, 1); }, JobEvent::cancel, ctx(""), true,
       JobStatus::cancelled, noCheck, std::nullopt},
      {"cancel of an active job is a request the heartbeat sees",
       [] { return jobIn(JobStatus::active, 1); }, JobEvent::cancel, ctx(""), true,
       JobStatus::active,
       [](const Job& j) {
         CHECK(j.cancel_requested);
         CHECK(j.locked_by == "w1");
       },
       std::nullopt},
      {"the holder observing the request cancels the job",
       [] {
         auto j = jobIn(JobStatus::active, 1);
         j.cancel_requested = true;
         return j;
       },
       JobEvent::cancel_observed, ctx("w1"), true, JobStatus::cancelled,
       [](const Job& j) { CHECK(j.locked_by.empty()); }, std::nullopt},
      {"cancel of a completed job is refused", [] { return jobIn(JobStatus::completed); },
       JobEvent::cancel, ctx(""), false, JobStatus::completed, noCheck, std::nullopt},
      {"cancel of a dead job is refused", [] { return jobIn(JobStatus::dead, 3); },
       JobEvent::cancel, ctx(""), false, JobStatus::dead, noCheck, std::nullopt},
      {"retry of a dead job makes it pending now with fresh attempts",
       [] {
         auto j = jobIn(JobStatus::dead, 3);
         j.finished_at = kNow - 1min;
         return j;
       },
       JobEvent::retry, ctx(""), true, JobStatus::pending,
       [](const Job& j) {
         CHECK(j.next_run_at == kNow);
         CHECK(j.attempts == 0);
         CHECK_FALSE(j.finished_at);
       },
       std::nullopt},
      {"retry of a failed job runs it now, attempts kept",
       [] {
         auto j = jobIn(JobStatus::failed, 2);
         j.next_run_at = kNow + 5min;
         return j;
       },
       JobEvent::retry, ctx(""), true, JobStatus::pending,
       [](const Job& j) {
         CHECK(j.next_run_at == kNow);
         CHECK(j.attempts == 2);
       },
       std::nullopt},
      {"dismiss of a dead job sets it aside, still dead", [] { return jobIn(JobStatus::dead, 3); },
       JobEvent::dismiss, ctx(""), true, JobStatus::dead,
       [](const Job& j) { CHECK(j.dismissed_at == kNow); }, std::nullopt},
      {"a dismissed job is not dismissed again",
       [] {
         auto j = jobIn(JobStatus::dead, 3);
         j.dismissed_at = kNow - 1min;
         return j;
       },
       JobEvent::dismiss, ctx(""), false, JobStatus::dead,
       [](const Job& j) { CHECK(j.dismissed_at == kNow - 1min); }, std::nullopt},
      {"dismiss of a failed job (it will retry) is refused",
       [] { return jobIn(JobStatus::failed, 1); }, JobEvent::dismiss, ctx(""), false,
       JobStatus::failed, noCheck, std::nullopt},
      {"dismiss of a completed job is refused", [] { return jobIn(JobStatus::completed, 1); },
       JobEvent::dismiss, ctx(""), false, JobStatus::completed, noCheck, std::nullopt},
      {"retry of a dismissed dead job clears the dismissal",
       [] {
         auto j = jobIn(JobStatus::dead, 3);
         j.dismissed_at = kNow - 1min;
         return j;
       },
       JobEvent::retry, ctx(""), true, JobStatus::pending,
       [](const Job& j) { CHECK_FALSE(j.dismissed_at); }, std::nullopt},
      {"retry of a cancelled job makes it pending", [] { return jobIn(JobStatus::cancelled, 1); },
       JobEvent::retry, ctx(""), true, JobStatus::pending, noCheck, std::nullopt},
      {"retry of an active job is refused", [] { return jobIn(JobStatus::active, 1); },
       JobEvent::retry, ctx(""), false, JobStatus::active, noCheck, std::nullopt},
      {"retry of a completed job is refused", [] { return jobIn(JobStatus::completed, 1); },
       JobEvent::retry, ctx(""), false, JobStatus::completed, noCheck, std::nullopt},
      {"a pending job cannot succeed", [] { return jobIn(JobStatus::pending, 0); },
       JobEvent::succeed, ctx("w1"), false, JobStatus::pending, noCheck, std::nullopt},
      {"the restarted instance abandons the lock of its earlier run: expired now",
       [] {
         auto j = jobIn(JobStatus::active, 1);
         j.locked_by = "host-a:8080#0badb007/default-0";
         return j;
       },
       JobEvent::abandon, ctx("host-a:8080#feedf00d"), true, JobStatus::active,
       [](const Job& j) {
         CHECK(j.lock_expires_at == kNow);
         CHECK(j.locked_by == "host-a:8080#0badb007/default-0");  // the reclaim re-locks it
         CHECK(j.attempts == 1);
         CHECK(isLockExpired(j, kNow));
       },
       std::nullopt},
      {"an instance never abandons its own run's lock",
       [] {
         auto j = jobIn(JobStatus::active, 1);
         j.locked_by = "host-a:8080#feedf00d/default-1";
         return j;
       },
       JobEvent::abandon, ctx("host-a:8080#feedf00d"), false, JobStatus::active, noCheck,
       std::nullopt},
      {"an instance never abandons another instance's lock",
       [] {
         auto j = jobIn(JobStatus::active, 1);
         j.locked_by = "host-b:8080#0badb007/default-0";
         return j;
       },
       JobEvent::abandon, ctx("host-a:8080#feedf00d"), false, JobStatus::active, noCheck,
       std::nullopt},
      {"a lock of the old form (no boot) is left to expire",
       [] {
         auto j = jobIn(JobStatus::active, 1);
         j.locked_by = "host-a:4242/default-0";
         return j;
       },
       JobEvent::abandon, ctx("host-a:8080#feedf00d"), false, JobStatus::active, noCheck,
       std::nullopt},
      {"abandon of a pending job is refused", [] { return jobIn(JobStatus::pending, 0); },
       JobEvent::abandon, ctx("host-a:8080#feedf00d"), false, JobStatus::pending, noCheck,
       std::nullopt},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    Job job = row.start();
    const Job before = job;
    auto result = applyJobEvent(job, row.event, row.context);
    REQUIRE(result.ok() == row.ok);
    CHECK(job.status == row.expected);
    if (row.ok) {
      CHECK(*result == row.raised);
      row.check(job);
    } else {
      CHECK(result.error().code == ErrorCode::failed_precondition);
      CHECK(job.attempts == before.attempts);
      CHECK(job.locked_by == before.locked_by);
    }
  }
}

TEST_CASE("job: a full run of three failed attempts ends dead, then retry revives it") {
  Job job = newJob("0123456789abcdef01234567", "p", JobType::issue_certificate, kNow);
  Timestamp t = kNow;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    CAPTURE(attempt);
    REQUIRE(isClaimable(job, t));
    REQUIRE(applyJobEvent(job, JobEvent::claim, {t, "w", "", {}}).ok());
    auto failed = applyJobEvent(job, JobEvent::fail, {t, "w", "boom", {}});
    REQUIRE(failed.ok());
    if (attempt < 3) {
      CHECK(job.status == JobStatus::failed);
      CHECK_FALSE(isClaimable(job, t));
      t = job.next_run_at;
    } else {
      CHECK(job.status == JobStatus::dead);
      CHECK(*failed == EventKind::job_failed);
    }
  }
  CHECK_FALSE(isClaimable(job, t + 24h));
  REQUIRE(applyJobEvent(job, JobEvent::retry, {t, "", "", {}}).ok());
  CHECK(isClaimable(job, t));
}

TEST_CASE("job: every table row is documented and names a real transition") {
  for (const auto& row : jobTransitions()) {
    CHECK_FALSE(row.effect_text.empty());
    CHECK(static_cast<bool>(row.guard));
    CHECK(static_cast<bool>(row.effect));
  }
  CHECK(jobTransitions().size() >= 18);
}

TEST_CASE("job: distribution jobs run on the distribution lane, the rest on the default lane") {
  CHECK(laneOf(JobType::distribution_execute) == Lane::distribution);
  CHECK(laneOf(JobType::distribution_rollback) == Lane::distribution);
  for (auto t :
       {JobType::issue_certificate, JobType::renew_certificate, JobType::msca_renew_certificate,
        JobType::cleanup_dns, JobType::certificate_expiration_check}) {
    CHECK(laneOf(t) == Lane::standard);
  }
  CHECK(std::string(nameOf(Lane::standard)) == "default");
}

TEST_CASE("job: names round-trip and unknown names are refused") {
  for (auto s : {JobStatus::pending, JobStatus::active, JobStatus::failed, JobStatus::completed,
                 JobStatus::dead, JobStatus::cancelled}) {
    CHECK(parseJobStatus(nameOf(s)) == s);
  }
  for (auto t :
       {JobType::issue_certificate, JobType::renew_certificate, JobType::msca_renew_certificate,
        JobType::cleanup_dns, JobType::certificate_expiration_check, JobType::distribution_execute,
        JobType::distribution_rollback}) {
    CHECK(parseJobType(nameOf(t)) == t);
  }
  CHECK_FALSE(parseJobStatus("Pending"));
  CHECK_FALSE(parseJobType("renew"));
  CHECK(parseLogLevel("error") == LogLevel::error);
  CHECK_FALSE(parseLogLevel("fatal"));
}

TEST_CASE("job: fan-out splits items into batch children linked to the parent") {
  Job parent = newJob("aaaaaaaaaaaaaaaaaaaaaaaa", "p", JobType::certificate_expiration_check, kNow);
  const auto children = fanOut(parent, 1201, 500, kNow);
  REQUIRE(children.size() == 3);
  CHECK(children[0].payload.at("batch_offset") == "0");
  CHECK(children[0].payload.at("batch_limit") == "500");
  CHECK(children[2].payload.at("batch_offset") == "1000");
  CHECK(children[2].payload.at("batch_limit") == "201");
  for (const auto& c : children) {
    CHECK(c.parent_id == parent.id);
    CHECK(c.status == JobStatus::pending);
    CHECK(c.project_id == "p");
  }
  CHECK(fanOut(parent, 0, 500, kNow).empty());
  CHECK(fanOut(parent, 500, 500, kNow).size() == 1);
}
