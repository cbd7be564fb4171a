// The JobRunner's table: each way an attempt can end (the handler's outcome, its notes, a cancel
// seen by the heartbeat, the shutdown deadline, no handler at all) → the job's state, its
// attempts, when it runs next, the last line of its log, the attempt's metric and the hooks the
// handler is given. One scripted handler over the memory store and a settable clock.
#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/services/job_runner.hpp>
#include <certsteward/testing/fake_clock.hpp>
#include <certsteward/testing/fakes.hpp>

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;
using namespace std::chrono_literals;

namespace {

// Runs the attempt on the caller's thread; the test beats the heart when a row asks for it.
class SteppedBackground : public ports::Background {
 public:
  std::function<void()> beat;  // the running attempt's heartbeat
  void whileRunning(Duration, const std::function<void()>& heartbeat,
                    const std::function<void()>& work) override {
    beat = heartbeat;
    work();
    beat = nullptr;
  }
  void forEach(std::size_t count, std::size_t,
               const std::function<void(std::size_t)>& work) override {
    for (std::size_t i = 0; i < count; ++i)
      work(i);
  }
  void pause(Duration) override {}
};

// Counts attempts by outcome label.
class OutcomeCounter : public ports::Metrics {
 public:
  std::map<std::string, int> outcomes;
  void increment(std::string_view name, const ports::MetricLabels& labels, double) override {
    if (name == "certsteward_job_attempts_total") {
      for (const auto& [key, value] : labels)
        if (key == "outcome") ++outcomes[value];
    }
  }
  void set(std::string_view, const ports::MetricLabels&, double) override {}
  void observe(std::string_view, const ports::MetricLabels&, double) override {}
};

// What the scripted handler does in one attempt.
struct Script {
  Status outcome;
  AttemptNotes notes;
  std::function<void()> during;  // inside the attempt, before it returns
};

class ScriptedHandler : public JobHandler {
 public:
  Script script;
  std::vector<std::string> hooks;  // "failed:<status>", "abandoned:<status>"
  bool stopSeen = false;

  std::vector<JobType> types() const override { return {JobType::cleanup_dns}; }
  Status attempt(const Job&, const StopSignal& stop, const Log& log, AttemptNotes& notes) override {
    log(LogLevel::info, "working");
    if (script.during) script.during();
    stopSeen = stop.requested();
    notes = script.notes;
    return script.outcome;
  }
  void attemptFailed(const Job& job, const std::string& error, const Log&) override {
    hooks.push_back("failed:" + std::string(nameOf(job.status)) + ":" + error);
  }
  void abandoned(const Job& job, const Log&) override {
    hooks.push_back("abandoned:" + std::string(nameOf(job.status)));
  }
  JobFailureSubject failureSubject(const Job&) const override {
    return {"the-subject", {{"zone", "example.test"}}};
  }
};

struct RunnerFixture {
  adapters::memory::MemoryStore store;
  testing::FakeClock clock;
  SteppedBackground background;
  testing::RecordingNotifierFake notifier;
  OutcomeCounter metrics;
  ScriptedHandler handler;
  JobPolicy policy{3, 300s, 30s, 600s, 2s, 55s};
  JobRunner runner{
      {store.jobs(), store.jobLogs(), clock, background, notifier, &metrics, {&handler}}, policy};

  Job queue(JobType type, int attemptsSoFar = 0) {
    Job job = newJob("job-" + std::to_string(++count), "p1", type, clock.now(), policy);
    job.attempts = attemptsSoFar;
    REQUIRE(store.jobs().enqueue(job).ok());
    return job;
  }
  Job stored(const Id& id) { return *store.jobs().get("p1", id); }
  std::string lastLog(const Id& id) {
    auto logs = store.jobLogs().list(id, PageRequest{1, 100});
    REQUIRE(logs.ok());
    return logs->items.empty() ? "" : logs->items.back().message;
  }
  int count = 0;
};

}  // namespace

TEST_CASE("job runner: each way an attempt ends, as the job table says") {
  struct Row {
    const char* name;
    std::function<void(RunnerFixture&, Script&)> arrange;  // the handler's script
    int attemptsBefore;                                    // attempts already spent
    JobStatus status;                                      // after the attempt
    int attempts;                                          // after the attempt
    Duration runsAgainIn;            // next_run_at - now (when pending/failed)
    const char* lastLog;             // the job log's last line
    const char* metric;              // the attempt's outcome label
    std::vector<std::string> hooks;  // the handler's hooks called
    bool jobFailedRaised;
  };
  const std::vector<Row> rows{
      {"success",
       [](RunnerFixture&, Script&) {},
       0,
       JobStatus::completed,
       1,
       0s,
       "succeeded",
       "succeeded",
       {},
       false},
      {"a failure with attempts left: retried after the backoff",
       [](RunnerFixture&, Script& s) { s.outcome = makeError(ErrorCode::unavailable, "dns down"); },
       0,
       JobStatus::failed,
       1,
       30s,
       "dns down",
       "retrying",
       {"failed:failed:dns down"},
       false},
      {"the second failure: the backoff doubles",
       [](RunnerFixture&, Script& s) { s.outcome = makeError(ErrorCode::unavailable, "dns down"); },
       1,
       JobStatus::failed,
       2,
       60s,
       "dns down",
       "retrying",
       {"failed:failed:dns down"},
       false},
      {"a failure with a Retry-After later than the backoff: not before it",
       [](RunnerFixture& fx, Script& s) {
         s.outcome = makeError(ErrorCode::unavailable, "slow down");
         s.notes.not_before = fx.clock.now() + 5min;
       },
       0,
       JobStatus::failed,
       1,
       5min,
       "slow down",
       "retrying",
       {"failed:failed:slow down"},
       false},
      {"the last attempt fails: dead, job.failed raised",
       [](RunnerFixture&, Script& s) { s.outcome = makeError(ErrorCode::unavailable, "dns down"); },
       2,
       JobStatus::dead,
       3,
       0s,
       "no attempts left: the job is dead",
       "dead",
       {"failed:dead:dns down"},
       true},
      {"a failure retrying cannot help (outside policy): dead at the first attempt",
       [](RunnerFixture&, Script& s) {
         s.outcome = makeError(ErrorCode::invalid_argument, "outside the project's policy");
         s.notes.final_failure = true;
       },
       0,
       JobStatus::dead,
       1,
       0s,
       "retrying cannot help: the job is dead",
       "dead",
       {"failed:dead:outside the project's policy"},
       true},
      {"deferred: back to pending at not_before, the attempt not counted",
       [](RunnerFixture& fx, Script& s) {
         s.outcome = makeError(ErrorCode::resource_exhausted, "rate limited");
         s.notes.deferred = true;
         s.notes.not_before = fx.clock.now() + 1h;
       },
       1,
       JobStatus::pending,
       1,
       1h,
       "rate limited: the job waits until then, the attempt is not counted",
       "deferred",
       {},
       false},
      {"deferred but done anyway: success stands",
       [](RunnerFixture& fx, Script& s) {
         s.notes.deferred = true;
         s.notes.not_before = fx.clock.now() + 1h;
       },
       0,
       JobStatus::completed,
       1,
       0s,
       "succeeded",
       "succeeded",
       {},
       false},
      {"a cancel seen by the heartbeat: a failing attempt is not retried",
       [](RunnerFixture& fx, Script& s) {
         s.outcome = makeError(ErrorCode::unavailable, "stopped");
         s.during = [&fx] {
           REQUIRE(
               fx.store.jobs()
                   .apply("job-1", JobEvent::cancel, JobContext{fx.clock.now(), "", "", fx.policy})
                   .ok());
           fx.background.beat();
         };
       },
       0,
       JobStatus::cancelled,
       1,
       0s,
       "cancelled while running: stopped",
       "cancelled",
       {},
       false},
      {"a cancel seen by the heartbeat of an attempt that finished: success stands",
       [](RunnerFixture& fx, Script& s) {
         s.during = [&fx] {
           REQUIRE(
               fx.store.jobs()
                   .apply("job-1", JobEvent::cancel, JobContext{fx.clock.now(), "", "", fx.policy})
                   .ok());
           fx.background.beat();
         };
       },
       0,
       JobStatus::completed,
       1,
       0s,
       "succeeded",
       "succeeded",
       {},
       false},
      {"the shutdown deadline: back to pending now, the attempt not counted",
       [](RunnerFixture& fx, Script& s) {
         s.outcome = makeError(ErrorCode::unavailable, "stopped");
         s.during = [&fx] { fx.runner.releaseRunning(); };
       },
       1,
       JobStatus::pending,
       1,
       0s,
       "the worker stopped before the attempt finished (stopped): back to pending, the attempt "
       "is not counted",
       "released",
       {},
       false},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    RunnerFixture fx;
    row.arrange(fx, fx.handler.script);
    const Job job = fx.queue(JobType::cleanup_dns, row.attemptsBefore);
    REQUIRE(*fx.runner.runOnce(Lane::standard, "worker-a"));
    const Job after = fx.stored(job.id);
    CHECK(after.status == row.status);
    CHECK(after.attempts == row.attempts);
    CHECK(after.locked_by.empty());
    if (row.status == JobStatus::pending || row.status == JobStatus::failed) {
      CHECK(after.next_run_at == fx.clock.now() + row.runsAgainIn);
    }
    CHECK(fx.lastLog(job.id) == row.lastLog);
    CHECK(fx.metrics.outcomes == std::map<std::string, int>{{row.metric, 1}});
    CHECK(fx.handler.hooks == row.hooks);
    const auto events = fx.notifier.events();
    CHECK(events.size() == (row.jobFailedRaised ? 1U : 0U));
    if (row.jobFailedRaised && !events.empty()) {
      CHECK(events[0].kind == EventKind::job_failed);
      CHECK(events[0].subject == "the-subject");  // as the handler named it
      CHECK(events[0].details.at("zone") == "example.test");
      CHECK(events[0].details.at("job.id") == job.id);
      const std::string reason = row.hooks.front().substr(row.hooks.front().rfind(':') + 1);
      CHECK(events[0].details.at("reason") == reason);  // the failure's words
    }
  }
}

TEST_CASE("job runner: a stop asked for during the attempt reaches the handler") {
  RunnerFixture fx;
  fx.handler.script.outcome = makeError(ErrorCode::unavailable, "stopped");
  fx.handler.script.during = [&fx] { fx.runner.releaseRunning(); };
  fx.queue(JobType::cleanup_dns);
  REQUIRE(*fx.runner.runOnce(Lane::standard, "worker-a"));
  CHECK(fx.handler.stopSeen);
  // Releasing: nothing more is claimed by this runner.
  fx.queue(JobType::cleanup_dns);
  CHECK_FALSE(*fx.runner.runOnce(Lane::standard, "worker-a"));
}

TEST_CASE("job runner: a type without a handler fails saying so, and is listed") {
  RunnerFixture fx;
  const Job job = fx.queue(JobType::issue_certificate);
  REQUIRE(*fx.runner.runOnce(Lane::standard, "worker-a"));
  CHECK(fx.stored(job.id).status == JobStatus::failed);
  CHECK(fx.stored(job.id).error_msg == "this build has no handler for issue_certificate jobs yet");
  CHECK(fx.handler.hooks.empty());
  const auto unhandled = fx.runner.unhandledTypes();
  CHECK(std::find(unhandled.begin(), unhandled.end(), JobType::cleanup_dns) == unhandled.end());
  CHECK(std::find(unhandled.begin(), unhandled.end(), JobType::issue_certificate) !=
        unhandled.end());
}

TEST_CASE("job runner: nothing due, nothing run") {
  RunnerFixture fx;
  CHECK_FALSE(*fx.runner.runOnce(Lane::standard, "worker-a"));
  const Job later = fx.queue(JobType::cleanup_dns);
  CHECK_FALSE(*fx.runner.runOnce(Lane::distribution, "worker-a"));  // another lane's
  CHECK(fx.stored(later.id).status == JobStatus::pending);
}

TEST_CASE("job runner: a job whose worker was lost on its last attempt is settled dead") {
  RunnerFixture fx;
  const Job job = fx.queue(JobType::cleanup_dns, 2);
  // Claimed by a worker that then vanished: its lock runs out.
  REQUIRE(fx.store.jobs()
              .claim(Lane::standard, JobContext{fx.clock.now(), "worker-gone", "", fx.policy})
              ->claimed);
  fx.clock.advance(fx.policy.lock_ttl + 1s);
  CHECK_FALSE(*fx.runner.runOnce(Lane::standard, "worker-a"));  // settled, nothing else to run
  CHECK(fx.stored(job.id).status == JobStatus::dead);
  CHECK(fx.handler.hooks == std::vector<std::string>{"abandoned:dead"});
  const auto events = fx.notifier.events();
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == EventKind::job_failed);
  CHECK(events[0].subject == "the-subject");
  CHECK(events[0].details.at("reason") ==
        "the worker stopped responding during the last attempt (lock expired)");
}
