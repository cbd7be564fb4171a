// DistributionRunner and the distribution actions in process, over the memory store and the
// shared FakeDistributionModule: every target gets the version, results per target, partial
// runs, automatic rollback, the rollback job restoring only what the last run changed (and
// refusing with the reason when it cannot), dry-runs and health checks that change nothing,
// credentials opened for the module and CREDENTIAL_MISSING without one, and one run per
// distribution across instances through the store's leases.
#include <doctest/doctest.h>

#include <mutex>
#include <thread>

#include <certsteward/adapters/runtime/thread_background.hpp>
#include <certsteward/services/distribution_job_handler.hpp>
#include <certsteward/services/distribution_runner.hpp>
#include <certsteward/services/distribution_service.hpp>
#include <certsteward/testing/fake_distribution.hpp>
#include <certsteward/testing/fakes.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;
using namespace std::chrono_literals;

namespace {

struct RunnerFixture : testing::ServiceFixture {
  testing::FakeDistributionModule files{true, false};    // keeps what it replaced (ssh, file)
  testing::FakeDistributionModule balancer{true, true};  // needs the version (haproxy)
  testing::FakeDistributionModule oneWay{false, false};  // cannot roll back
  testing::FakeDistributionModules modules;
  testing::InlineBackground background;
  testing::RecordingNotifierFake notifier;
  DistributionRunner runner{{store.certificates(), store.distributions(), store.moduleConfigs(),
                             store.credentials(), modules, secrets, notifier, clock, background},
                            DistributionOptions{}};
  DistributionService service{
      {store.distributions(), store.certificates(), store.moduleConfigs(), ids, clock},
      store.jobs(),
      runner,
      JobPolicy{},
      work,
      access,
      audit};
  Certificate cert;
  Id credentialId;
  std::vector<std::string> logged;

  // The ports of a runner that holds each distribution through the store's leases (one
  // instance among several).
  DistributionRunner::Ports leasedPorts() {
    return {store.certificates(),
            store.distributions(),
            store.moduleConfigs(),
            store.credentials(),
            modules,
            secrets,
            notifier,
            clock,
            background,
            nullptr,
            nullptr,
            nullptr,
            &store.leaderLock()};
  }

  RunnerFixture() {
    project("p1");
    modules.add("files", files);
    modules.add("balancer", balancer);
    modules.add("one-way", oneWay);
    cert.id = ids.next();
    cert.project_id = "p1";
    cert.common_name = "www.example.com";
    cert.sans = {"www.example.com"};
    cert.status = CertificateStatus::active;
    REQUIRE(store.certificates().create(cert).ok());
    issue("01");
    Credential c;
    c.id = credentialId = ids.next();
    c.project_id = "p1";
    c.name = "deploy";
    c.kind = "password";
    c.username = "deployer";
    c.secret_sealed = *secrets.seal("s3cret-password");
    REQUIRE(store.credentials().create(c).ok());
  }
  // The certificate as a renewal leaves it: a new serial, pending distribution.
  void issue(const std::string& serial) {
    auto current = *store.certificates().get("p1", cert.id);
    current.serial_number = serial;
    current.certificate_pem = "-----BEGIN CERTIFICATE-----\n" + serial + "\n";
    current.private_key_sealed = *secrets.seal("-----BEGIN PRIVATE KEY-----\n" + serial + "\n");
    setDistributionPending(current, true, clock.now());
    REQUIRE(store.certificates().update(current).ok());
    cert = *store.certificates().get("p1", cert.id);
  }
  Id distribution(const std::string& module, std::vector<std::string> targets,
                  bool autoRollback = false, bool credential = true) {
    ModuleConfig m;
    m.id = ids.next();
    m.project_id = "p1";
    m.name = module + " config";
    m.module = module;
    m.auto_rollback_on_failure = autoRollback;
    for (const auto& t : targets)
      m.targets.push_back({t, {{"host", t}}, credential ? credentialId : ""});
    REQUIRE(store.moduleConfigs().create(m).ok());
    Distribution d;
    d.id = ids.next();
    d.project_id = "p1";
    d.certificate_id = cert.id;
    d.module_config_id = m.id;
    REQUIRE(store.distributions().create(d).ok());
    return d.id;
  }
  Job job(JobType type, const Id& distributionId = {}) {
    Job j = newJob(ids.next(), "p1", type, clock.now());
    j.certificate_id = cert.id;
    if (!distributionId.empty()) j.payload[kDistributionIdPayload] = distributionId;
    return j;
  }
  Status execute(const Id& d = {}) {
    return runner.execute(job(JobType::distribution_execute, d),
                          [this](LogLevel, const std::string& m) { logged.push_back(m); });
  }
  Status rollback(const Id& d) {
    auto targets = runner.rollbackTargets(stored(d));
    if (!targets) return targets.error();
    Job j = job(JobType::distribution_rollback, d);
    j.payload[kRollbackTargetsPayload] = joinTargetNames(*targets);
    return runner.rollback(j, [this](LogLevel, const std::string& m) { logged.push_back(m); });
  }
  Distribution stored(const Id& d) { return *store.distributions().get("p1", d); }
  const TargetResult& result(const Id& d, const std::string& target) {
    static TargetResult copy;
    for (const auto& r : stored(d).last_target_results) {
      if (r.target_name == target) return copy = r;
    }
    FAIL("no result for " << target);
    return copy;
  }
};

}  // namespace

TEST_CASE(
    "distribution runner: every target gets the version and the certificate is no longer pending") {
  RunnerFixture fx;
  const Id d = fx.distribution("files", {"web-1", "web-2", "web-3"});
  REQUIRE(fx.execute().ok());
  for (const char* t : {"web-1", "web-2", "web-3"}) {
    CHECK(fx.files.served(t) == "01");
    CHECK(fx.result(d, t).status == "succeeded");
  }
  const auto after = fx.stored(d);
  CHECK(after.last_status == "succeeded");
  CHECK(after.deployed_serial == "01");
  CHECK(after.previous_serial.empty());
  CHECK(after.deployed_sealed.find("PRIVATE KEY") == std::string::npos);  // sealed
  CHECK_FALSE(fx.store.certificates().get("p1", fx.cert.id)->distribution_pending);
  // The module got the opened key and the credential's opened secret.
  CHECK(fx.files.lastKey() == "-----BEGIN PRIVATE KEY-----\n01\n");
  CHECK(fx.files.lastSecret() == "s3cret-password");
  CHECK(std::find(fx.logged.begin(), fx.logged.end(), "target web-2: wrote serial 01") !=
        fx.logged.end());
  for (const auto& line : fx.logged)
    CHECK(line.find("s3cret") == std::string::npos);
  // One distribution.succeeded, naming the serial every target holds.
  REQUIRE(fx.notifier.events().size() == 1);
  CHECK(fx.notifier.events()[0].kind == EventKind::distribution_succeeded);
  CHECK(fx.notifier.events()[0].resource_id == d);
  CHECK(fx.notifier.events()[0].message.find("serial 01") != std::string::npos);
}

TEST_CASE(
    "distribution runner: the run is on record before targets are touched, and a re-run after a "
    "kill keeps the previous serial it found") {
  RunnerFixture fx;
  const Id d = fx.distribution("files", {"web-1", "web-2"});
  REQUIRE(fx.execute().ok());
  REQUIRE(fx.stored(d).deployed_serial == "01");
  fx.issue("02");
  // What a process killed in the middle of delivering leaves on record.
  std::optional<Distribution> midRun;
  fx.files.whileDelivering = [&](const std::string&) {
    if (!midRun) midRun = *fx.store.distributions().get("p1", d);
  };
  REQUIRE(fx.execute().ok());
  fx.files.whileDelivering = nullptr;
  REQUIRE(midRun);
  CHECK(midRun->last_status == "in_progress");
  CHECK(midRun->last_action == "execute");
  CHECK(midRun->deployed_serial == "01");
  // The kill: the targets hold 02, the record is as the run left it before it ended.
  auto killed = *midRun;
  REQUIRE(fx.store.distributions().update(killed).ok());
  CHECK(fx.files.served("web-1") == "02");
  // The job taken again: nothing to write, and the record says what the targets hold now and
  // what they held before the killed run.
  REQUIRE(fx.execute(d).ok());
  const auto after = fx.stored(d);
  CHECK(after.last_status == "succeeded");
  CHECK(after.deployed_serial == "02");
  CHECK(after.previous_serial == "01");

  // A killed run whose job then went dead (its worker lost on the last attempt) does not read as
  // running for ever: it is failed, with why.
  REQUIRE(fx.store.distributions().update(killed).ok());
  Job dead = fx.job(JobType::distribution_execute, d);
  dead.status = JobStatus::dead;
  REQUIRE(fx.runner.abandon(dead, "its worker was lost on the last attempt").ok());
  const auto settled = fx.stored(d);
  CHECK(settled.last_status == "failed");
  CHECK(settled.last_error == "its worker was lost on the last attempt");
  // One that is not in progress is left as it is.
  REQUIRE(fx.runner.abandon(dead, "again").ok());
  CHECK(fx.stored(d).last_error == "its worker was lost on the last attempt");
}

TEST_CASE(
    "distribution runner: a failing target makes the run partial, raises the event, and keeps the "
    "certificate pending") {
  RunnerFixture fx;
  const Id d = fx.distribution("files", {"web-1", "web-2"});
  fx.files.failTarget("web-2", "CONNECT_FAILED");
  const Status s = fx.execute();
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code == ErrorCode::unavailable);
  CHECK(fx.stored(d).last_status == "partial");
  CHECK(fx.result(d, "web-2").error_code == "CONNECT_FAILED");
  CHECK_FALSE(fx.result(d, "web-1").rolled_back);
  CHECK(fx.files.served("web-1") == "01");  // without auto-rollback it stays
  CHECK(fx.store.certificates().get("p1", fx.cert.id)->distribution_pending);
  REQUIRE(fx.notifier.events().size() == 1);
  CHECK(fx.notifier.events()[0].kind == EventKind::distribution_failed);
  // Healed: the retry delivers everywhere and clears pending.
  fx.files.heal("web-2");
  REQUIRE(fx.execute().ok());
  CHECK(fx.stored(d).last_status == "succeeded");
  CHECK_FALSE(fx.store.certificates().get("p1", fx.cert.id)->distribution_pending);
  REQUIRE(fx.notifier.events().size() == 2);  // and the recovery is told
  CHECK(fx.notifier.events()[1].kind == EventKind::distribution_succeeded);
}

TEST_CASE(
    "distribution runner: with auto_rollback_on_failure the targets that succeeded are put back") {
  RunnerFixture fx;
  const Id d = fx.distribution("files", {"web-1", "web-2", "web-3"}, true);
  REQUIRE(fx.execute().ok());  // serial 01 everywhere
  fx.issue("02");
  fx.files.failTarget("web-3", "RELOAD_FAILED");
  REQUIRE_FALSE(fx.execute().ok());
  CHECK(fx.files.served("web-1") == "01");
  CHECK(fx.files.served("web-2") == "01");
  CHECK(fx.files.served("web-3") == "01");
  CHECK(fx.result(d, "web-1").rolled_back);
  CHECK(fx.result(d, "web-1").rollback_error.empty());
  CHECK(fx.result(d, "web-3").error_code == "RELOAD_FAILED");
  const auto after = fx.stored(d);
  CHECK(after.last_status == "failed");  // nothing holds the new version
  CHECK(after.deployed_serial == "01");
  CHECK(after.last_error.find("web-3") != std::string::npos);
}

TEST_CASE(
    "distribution runner: automatic rollback through the kept version, and without one it says "
    "why") {
  RunnerFixture fx;
  const Id d = fx.distribution("balancer", {"lb-1", "lb-2"}, true);
  REQUIRE(fx.execute().ok());
  fx.issue("02");
  fx.balancer.failTarget("lb-2", "VERIFY_FAILED", 1);
  REQUIRE_FALSE(fx.execute().ok());
  // lb-1 took 02 and went back to 01 through the version the service kept.
  CHECK(fx.balancer.served("lb-1") == "01");
  CHECK(fx.result(d, "lb-1").rolled_back);
  // A module that needs the previous version, on a first delivery, has none to go back to.
  fx.issue("03");
  const Id fresh = fx.distribution("balancer", {"lb-3", "lb-4"}, true);
  fx.balancer.failTarget("lb-4", "CONNECT_FAILED", 1);
  REQUIRE_FALSE(fx.execute(fresh).ok());
  CHECK_FALSE(fx.result(fresh, "lb-3").rolled_back);
  CHECK(fx.result(fresh, "lb-3").rollback_error.find("no earlier version") != std::string::npos);
  CHECK(fx.stored(fresh).last_status == "partial");
}

TEST_CASE("distribution runner: rollback restores the targets the last run changed, once") {
  RunnerFixture fx;
  const Id d = fx.distribution("files", {"web-1", "web-2"});
  REQUIRE(fx.execute().ok());
  fx.issue("02");
  fx.files.failTarget("web-2", "CONNECT_FAILED", 1);
  REQUIRE_FALSE(fx.execute().ok());  // web-1 holds 02, web-2 still 01
  CHECK(fx.stored(d).last_status == "partial");
  REQUIRE(fx.rollback(d).ok());
  CHECK(fx.files.served("web-1") == "01");
  CHECK(fx.files.served("web-2") == "01");
  CHECK(fx.files.calls("restore") == 1);  // web-2 was not touched by the last run
  CHECK(fx.result(d, "web-2").status == "skipped");
  const auto after = fx.stored(d);
  CHECK(after.last_status == "rolled_back");
  // Already rolled back: refused with the reason.
  auto again = fx.runner.rollbackTargets(after);
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().code == ErrorCode::failed_precondition);
  CHECK(again.error().message.find("already rolled back") != std::string::npos);
}

TEST_CASE(
    "distribution runner: rollback is refused when the module cannot or nothing was delivered") {
  RunnerFixture fx;
  const Id oneWay = fx.distribution("one-way", {"t1"});
  const Id never = fx.distribution("files", {"t2"});
  const Id balancer = fx.distribution("balancer", {"t3"});
  CHECK(fx.runner.rollbackTargets(fx.stored(never)).error().message.find("nothing to restore") !=
        std::string::npos);
  REQUIRE(fx.execute().ok());
  CHECK(fx.runner.rollbackTargets(fx.stored(oneWay)).error().message ==
        "module one-way cannot roll back");
  // The balancer has served only one version: there is none before it.
  CHECK(fx.runner.rollbackTargets(fx.stored(balancer)).error().message.find("no version before") !=
        std::string::npos);
  fx.issue("02");
  REQUIRE(fx.execute().ok());
  REQUIRE(fx.rollback(balancer).ok());
  CHECK(fx.balancer.served("t3") == "01");
  CHECK(fx.stored(balancer).deployed_serial == "01");
}

TEST_CASE(
    "distribution runner: a target without its credential is CREDENTIAL_MISSING and the module is "
    "not called") {
  RunnerFixture fx;
  const Id d = fx.distribution("files", {"web-1"}, false, false);
  fx.modules.add("ssh", fx.files);  // ssh needs a credential
  auto config = *fx.store.moduleConfigs().get("p1", fx.stored(d).module_config_id);
  config.module = "ssh";
  REQUIRE(fx.store.moduleConfigs().update(config).ok());
  REQUIRE_FALSE(fx.execute().ok());
  CHECK(fx.result(d, "web-1").error_code == "CREDENTIAL_MISSING");
  CHECK(fx.files.calls("deliver") == 0);
  // A module this build lacks.
  config.module = "carrier-pigeon";
  REQUIRE(fx.store.moduleConfigs().update(config).ok());
  REQUIRE_FALSE(fx.execute().ok());
  CHECK(fx.stored(d).last_target_results.at(0).error_code == "MODULE_UNAVAILABLE");
}

TEST_CASE(
    "distribution actions: dry-run and health change nothing, execute and rollback queue jobs, by "
    "operators") {
  RunnerFixture fx;
  const Id d = fx.distribution("files", {"web-1", "web-2"});
  const auto viewer = fx.member("p1", ProjectRole::viewer);
  const auto op = fx.member("p1", ProjectRole::operator_);
  CHECK(fx.service.dryRun(viewer, fx.ctx(), "p1", fx.cert.id, d).error().code ==
        ErrorCode::permission_denied);
  CHECK(fx.service.execute(viewer, fx.ctx(), "p1", fx.cert.id, d).error().code ==
        ErrorCode::permission_denied);

  auto plan = fx.service.dryRun(op, fx.ctx(), "p1", fx.cert.id, d);
  REQUIRE(plan.ok());
  REQUIRE(plan->size() == 2);
  CHECK((*plan)[0].status == "ok");
  REQUIRE((*plan)[0].changes.size() == 1);
  CHECK((*plan)[0].changes[0].action == "create");
  CHECK(fx.files.served("web-1").empty());  // nothing delivered
  CHECK(fx.stored(d).last_status == "never_run");
  CHECK(fx.audited("distribution.dry_run").size() == 1);

  auto queued = fx.service.execute(op, fx.ctx(), "p1", fx.cert.id, d);
  REQUIRE(queued.ok());
  CHECK(queued->type == JobType::distribution_execute);
  CHECK(queued->payload.at(kDistributionIdPayload) == d);
  CHECK(queued->lane() == Lane::distribution);
  // Asked twice before it ran: the same job.
  CHECK(fx.service.execute(op, fx.ctx(), "p1", fx.cert.id, d)->id == queued->id);
  CHECK(fx.audited("distribution.execute").size() == 2);

  CHECK(fx.service.rollback(op, fx.ctx(), "p1", fx.cert.id, d).error().code ==
        ErrorCode::failed_precondition);  // nothing delivered yet
  REQUIRE(fx.runner.execute(*queued, [](LogLevel, const std::string&) {}).ok());
  // The delivery job is still queued (nothing ran it through the queue): no rollback beside it.
  auto beside = fx.service.rollback(op, fx.ctx(), "p1", fx.cert.id, d);
  REQUIRE_FALSE(beside.ok());
  CHECK(beside.error().message.find("queued or running") != std::string::npos);
  REQUIRE(fx.store.jobs()
              .apply(queued->id, JobEvent::cancel, JobContext{fx.clock.now(), "", "", {}})
              .ok());
  auto rolling = fx.service.rollback(op, fx.ctx(), "p1", fx.cert.id, d);
  REQUIRE(rolling.ok());
  CHECK(rolling->type == JobType::distribution_rollback);
  CHECK(rolling->payload.at(kRollbackTargetsPayload) == "web-1\nweb-2");
  // And no execute while the rollback waits.
  CHECK(fx.service.execute(op, fx.ctx(), "p1", fx.cert.id, d)
            .error()
            .message.find("rollback of this distribution is queued") != std::string::npos);

  fx.files.failTarget("web-2", "AUTH_FAILED");
  auto health = fx.service.health(op, fx.ctx(), "p1", fx.stored(d).module_config_id);
  REQUIRE(health.ok());
  CHECK((*health)[0].status == "ok");
  CHECK((*health)[1].status == "failed");
  CHECK((*health)[1].error_code == "AUTH_FAILED");
  CHECK(fx.files.calls("deliver") == 2);  // only the one execute
}

TEST_CASE(
    "distribution runner: a re-run of the same version with a failure rolls back nothing that did "
    "not change") {
  RunnerFixture fx;
  const Id d = fx.distribution("files", {"web-1", "web-2"}, true);
  REQUIRE(fx.execute().ok());  // 01 everywhere
  fx.issue("02");
  REQUIRE(fx.execute().ok());  // 02 everywhere, 01 set aside
  fx.files.failTarget("web-2", "TIMEOUT", 1);
  REQUIRE_FALSE(fx.execute().ok());         // the same version again (a retry, the sweep)
  CHECK(fx.files.served("web-1") == "02");  // it already held 02: left alone
  CHECK_FALSE(fx.result(d, "web-1").changed);
  CHECK_FALSE(fx.result(d, "web-1").rolled_back);
  CHECK(fx.stored(d).deployed_serial == "02");
  // And a rollback now has nothing the last run changed.
  CHECK(fx.runner.rollbackTargets(fx.stored(d)).error().message.find("changed no target") !=
        std::string::npos);
}

TEST_CASE("distribution runner: a rollback that fails on a target is retried on that target only") {
  RunnerFixture fx;
  const Id d = fx.distribution("files", {"web-1", "web-2", "web-3"});
  REQUIRE(fx.execute().ok());
  fx.issue("02");
  REQUIRE(fx.execute().ok());
  fx.files.failTarget("web-3", "CONNECT_FAILED", 1);
  REQUIRE_FALSE(fx.rollback(d).ok());
  auto after = fx.stored(d);
  CHECK(after.last_action == "rollback");
  CHECK(after.last_status == "partial");
  CHECK(after.deployed_serial == "02");  // not every target is back yet
  CHECK(fx.files.served("web-1") == "01");
  CHECK(fx.files.served("web-3") == "02");
  auto retry = fx.runner.rollbackTargets(after);
  REQUIRE(retry.ok());
  CHECK(*retry == std::vector<std::string>{"web-3"});
  REQUIRE(fx.rollback(d).ok());
  CHECK(fx.files.served("web-3") == "01");
  CHECK(fx.stored(d).last_status == "rolled_back");
  CHECK(fx.stored(d).deployed_serial == "01");
}

TEST_CASE("distribution runner: nothing set aside anywhere makes a rollback say so and stop") {
  RunnerFixture fx;
  const Id d = fx.distribution("files", {"web-1"});
  REQUIRE(fx.execute().ok());    // the first delivery: nothing was there before
  REQUIRE(fx.rollback(d).ok());  // completes: retrying could not help
  const auto after = fx.stored(d);
  CHECK(after.last_status == "failed");
  CHECK(after.last_error.find("nothing to restore") != std::string::npos);
  CHECK(fx.result(d, "web-1").status == "skipped");
  CHECK(fx.files.served("web-1") == "01");
  CHECK(fx.notifier.events().back().kind == EventKind::distribution_failed);
}

TEST_CASE(
    "distribution runner: a run another instance holds is refused until its lease is given up or "
    "lapses") {
  RunnerFixture fx;
  // This instance's runner, holding each distribution through the store's leases.
  DistributionRunner instance{fx.leasedPorts(), DistributionOptions{}};
  const Id d = fx.distribution("files", {"web-1"});
  const std::string lease = "distribution:" + d;
  const auto log = [](LogLevel, const std::string&) {};
  // Another instance's job is delivering this distribution.
  REQUIRE(*fx.store.leaderLock().tryAcquire(lease, "job-elsewhere", fx.clock.now(), 60s));
  const auto refused = instance.execute(fx.job(JobType::distribution_execute, d), log);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::unavailable);  // retried later by the job
  CHECK(refused.error().message.find("in progress") != std::string::npos);
  CHECK(fx.files.calls("deliver") == 0);
  CHECK(fx.stored(d).last_status == Distribution{}.last_status);  // nothing recorded
  CHECK(fx.stored(d).last_target_results.empty());

  // Given up: this instance runs it, and gives the lease back when done.
  REQUIRE(fx.store.leaderLock().release(lease, "job-elsewhere").ok());
  REQUIRE(instance.execute(fx.job(JobType::distribution_execute, d), log).ok());
  CHECK(fx.files.served("web-1") == "01");
  CHECK_FALSE(fx.store.leaderLock().holder(lease, fx.clock.now())->has_value());

  // A rollback is held off the same way; the holder crashed, so its lease lapses after 60 s.
  REQUIRE(*fx.store.leaderLock().tryAcquire(lease, "job-crashed", fx.clock.now(), 60s));
  Job back = fx.job(JobType::distribution_rollback, d);
  back.payload[kRollbackTargetsPayload] = "web-1";
  CHECK(instance.rollback(back, log).error().code == ErrorCode::unavailable);
  CHECK(fx.files.served("web-1") == "01");
  fx.clock.advance(61s);
  REQUIRE(instance.rollback(back, log).ok());
  CHECK(fx.files.calls("restore") == 1);
  CHECK(fx.stored(d).last_action == "rollback");
}

TEST_CASE("distribution runner: a lease lost during the run makes the attempt fail and run again") {
  RunnerFixture fx;
  adapters::runtime::ThreadBackground threads;  // the lease's renewal ticks for real
  DistributionOptions options;
  options.lease = 300ms;  // renewed every 100 ms
  DistributionRunner instance{
      {fx.store.certificates(), fx.store.distributions(), fx.store.moduleConfigs(),
       fx.store.credentials(), fx.modules, fx.secrets, fx.notifier, fx.clock, threads, nullptr,
       nullptr, nullptr, &fx.store.leaderLock()},
      options};
  const Id d = fx.distribution("files", {"web-1"});
  const std::string lease = "distribution:" + d;
  // While the target is written, the lease lapses (the fake clock jumps past it) and another
  // instance takes it: this run's renewals fail.
  fx.files.whileDelivering = [&](const std::string&) {
    fx.clock.advance(1s);
    REQUIRE(*fx.store.leaderLock().tryAcquire(lease, "elsewhere", fx.clock.now(), 60s));
    std::this_thread::sleep_for(250ms);  // two renewal ticks
  };
  const auto ran = instance.execute(fx.job(JobType::distribution_execute, d),
                                    [](LogLevel, const std::string&) {});
  REQUIRE_FALSE(ran.ok());
  CHECK(ran.error().code == ErrorCode::unavailable);
  // The other holder keeps its lease (this run gives back only its own).
  CHECK(*fx.store.leaderLock().holder(lease, fx.clock.now()) ==
        std::optional<std::string>("elsewhere"));
}

TEST_CASE("distribution runner: many targets side by side on threads, every result in its place") {
  RunnerFixture fx;
  adapters::runtime::ThreadBackground threads;
  DistributionRunner parallel{
      {fx.store.certificates(), fx.store.distributions(), fx.store.moduleConfigs(),
       fx.store.credentials(), fx.modules, fx.secrets, fx.notifier, fx.clock, threads},
      DistributionOptions{6, std::chrono::seconds{5}}};
  std::vector<std::string> names;
  for (int i = 0; i < 60; ++i)
    names.push_back("host-" + std::to_string(i));
  const Id d = fx.distribution("files", names);
  for (int i = 0; i < 60; i += 7)
    fx.files.failTarget(names[static_cast<std::size_t>(i)], "AUTH_FAILED");
  std::mutex logMutex;
  std::vector<std::string> lines;
  const auto status = parallel.execute(fx.job(JobType::distribution_execute, d),
                                       [&](LogLevel, const std::string& m) {
                                         std::lock_guard lock(logMutex);
                                         lines.push_back(m);
                                       });
  CHECK_FALSE(status.ok());
  const auto results = fx.stored(d).last_target_results;
  REQUIRE(results.size() == 60);
  for (int i = 0; i < 60; ++i) {
    const auto& r = results[static_cast<std::size_t>(i)];
    CHECK(r.target_name == names[static_cast<std::size_t>(i)]);
    CHECK(r.status == (i % 7 == 0 ? "failed" : "succeeded"));
    if (i % 7 != 0) CHECK(fx.files.served(r.target_name) == "01");
  }
  CHECK(fx.stored(d).last_status == "partial");
  CHECK(lines.size() > 60);
}

TEST_CASE(
    "distribution runner: many targets go as a chain of batch children, the last one decides and "
    "rolls back") {
  RunnerFixture fx;
  DistributionRunner batching{
      {fx.store.certificates(), fx.store.distributions(), fx.store.moduleConfigs(),
       fx.store.credentials(), fx.modules, fx.secrets, fx.notifier, fx.clock, fx.background,
       nullptr, &fx.store.jobs(), &fx.ids},
      DistributionOptions{4, std::chrono::seconds{5}, 2, JobPolicy{}}};
  const Id d = fx.distribution("files", {"a", "b", "c", "d", "e"}, true);
  const auto quiet = [](LogLevel, const std::string&) {};
  // Runs the queued batch children one by one, as the distribution lane would.
  const auto drain = [&] {
    std::vector<Job> ran;
    for (int guard = 0; guard < 10; ++guard) {
      auto claimed =
          fx.store.jobs().claim(Lane::distribution, JobContext{fx.clock.now(), "w", "", {}});
      REQUIRE(claimed.ok());
      if (!claimed->claimed) break;
      const Job child = *claimed->claimed;
      const Status s = batching.execute(child, quiet);
      REQUIRE(fx.store.jobs()
                  .apply(child.id, s ? JobEvent::succeed : JobEvent::fail,
                         JobContext{fx.clock.now(), "w", s ? "" : s.error().message, {}})
                  .ok());
      ran.push_back(child);
    }
    return ran;
  };

  const Job start = fx.job(JobType::distribution_execute, d);
  REQUIRE(batching.execute(start, quiet).ok());  // queues batch 0 and leaves
  CHECK(fx.files.calls("deliver") == 0);
  auto ran = drain();
  REQUIRE(ran.size() == 3);  // 2 + 2 + 1 targets
  for (std::size_t i = 0; i < ran.size(); ++i) {
    CHECK(ran[i].parent_id == std::optional<Id>(start.id));
    CHECK(ran[i].payload.at(kBatchPayload) == std::to_string(i));
  }
  auto after = fx.stored(d);
  CHECK(after.last_status == "succeeded");
  CHECK(after.deployed_serial == "01");
  REQUIRE(after.last_target_results.size() == 5);
  for (const auto& r : after.last_target_results)
    CHECK(r.status == "succeeded");

  // The next version fails on the last target: every target the chain changed goes back.
  fx.issue("02");
  fx.files.failTarget("e", "CONNECT_FAILED", 1);
  REQUIRE(batching.execute(fx.job(JobType::distribution_execute, d), quiet).ok());
  ran = drain();
  REQUIRE(ran.size() == 3);
  after = fx.stored(d);
  CHECK(after.last_status == "failed");
  CHECK(after.deployed_serial == "01");
  for (const char* t : {"a", "b", "c", "d", "e"})
    CHECK(fx.files.served(t) == "01");
  CHECK(fx.result(d, "a").rolled_back);
  CHECK(fx.result(d, "e").error_code == "CONNECT_FAILED");

  // The last batch's retry (after its backoff) delivers to every target again, from the first.
  fx.clock.advance(std::chrono::hours{1});
  ran = drain();
  REQUIRE(ran.size() == 4);
  CHECK(ran[0].payload.at(kBatchPayload) == "2");  // the retry, which starts the chain again
  CHECK(ran[1].payload.at(kBatchPayload) == "0");
  after = fx.stored(d);
  CHECK(after.last_status == "succeeded");
  CHECK(after.deployed_serial == "02");
  for (const char* t : {"a", "b", "c", "d", "e"})
    CHECK(fx.files.served(t) == "02");
}

TEST_CASE(
    "distribution runner: a chain of batch children holds the distribution's lease from the "
    "first batch to the last") {
  RunnerFixture fx;
  DistributionRunner batching{
      {fx.store.certificates(), fx.store.distributions(), fx.store.moduleConfigs(),
       fx.store.credentials(), fx.modules, fx.secrets, fx.notifier, fx.clock, fx.background,
       nullptr, &fx.store.jobs(), &fx.ids, &fx.store.leaderLock()},
      DistributionOptions{4, std::chrono::seconds{5}, 2, JobPolicy{}}};
  const Id d = fx.distribution("files", {"a", "b", "c", "d", "e"});
  const std::string lease = "distribution:" + d;
  const auto quiet = [](LogLevel, const std::string&) {};
  const auto holder = [&] { return *fx.store.leaderLock().holder(lease, fx.clock.now()); };
  const auto claim = [&] {
    auto claimed =
        fx.store.jobs().claim(Lane::distribution, JobContext{fx.clock.now(), "w", "", {}});
    REQUIRE(claimed.ok());
    REQUIRE(claimed->claimed.has_value());
    return *claimed->claimed;
  };
  const auto finish = [&](const Job& job, const Status& s) {
    REQUIRE(fx.store.jobs()
                .apply(job.id, s ? JobEvent::succeed : JobEvent::fail,
                       JobContext{fx.clock.now(), "w", s ? "" : s.error().message, {}})
                .ok());
  };

  Job start = fx.job(JobType::distribution_execute, d);
  start.attempts = 1;
  REQUIRE(batching.execute(start, quiet).ok());  // queues batch 0, hands the lease to it
  for (int batch = 0; batch < 3; ++batch) {
    CAPTURE(batch);
    const Job child = claim();
    CHECK(holder() == std::optional<std::string>(child.id + "/" + std::to_string(child.attempts)));
    // Between batches another run of the distribution is refused, not interleaved.
    Job other = fx.job(JobType::distribution_execute, d);
    other.attempts = 1;
    const auto refused = batching.execute(other, quiet);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().reason == kDistributionBusy);
    Job back = fx.job(JobType::distribution_rollback, d);
    back.payload[kRollbackTargetsPayload] = "a";
    CHECK(batching.rollback(back, quiet).error().reason == kDistributionBusy);

    const Status s = batching.execute(child, quiet);
    REQUIRE(s.ok());
    finish(child, s);
  }
  // The last batch gives the lease up.
  CHECK_FALSE(holder().has_value());
  CHECK(fx.stored(d).last_status == "succeeded");
  for (const char* t : {"a", "b", "c", "d", "e"})
    CHECK(fx.files.served(t) == "01");
}

TEST_CASE(
    "distribution job handler: execute and rollback by type, deferred while another run holds "
    "the distribution, a lost execute closed in words") {
  RunnerFixture fx;
  DistributionRunner instance{fx.leasedPorts(), DistributionOptions{}};
  DistributionJobHandler handler{instance, fx.store.certificates(), fx.clock};
  CHECK(handler.types() ==
        std::vector<JobType>{JobType::distribution_execute, JobType::distribution_rollback});
  const Id d = fx.distribution("files", {"web-1"});
  const std::string lease = "distribution:" + d;
  const auto log = [](LogLevel, const std::string&) {};
  StopSignal stop;
  // Held by another run: not started, deferred 15 s (the attempt is not counted by the runner).
  REQUIRE(*fx.store.leaderLock().tryAcquire(lease, "job-elsewhere", fx.clock.now(), 60s));
  AttemptNotes held;
  CHECK_FALSE(handler.attempt(fx.job(JobType::distribution_execute, d), stop, log, held).ok());
  CHECK(held.deferred);
  CHECK(held.not_before == std::optional<Timestamp>(fx.clock.now() + 15s));
  CHECK(fx.files.calls("deliver") == 0);
  REQUIRE(fx.store.leaderLock().release(lease, "job-elsewhere").ok());
  AttemptNotes free;
  REQUIRE(handler.attempt(fx.job(JobType::distribution_execute, d), stop, log, free).ok());
  CHECK_FALSE(free.deferred);
  CHECK(fx.files.served("web-1") == "01");
  // A rollback job goes to the rollback.
  fx.issue("02");
  REQUIRE(handler.attempt(fx.job(JobType::distribution_execute, d), stop, log, free).ok());
  Job back = fx.job(JobType::distribution_rollback, d);
  back.payload[kRollbackTargetsPayload] = "web-1";
  REQUIRE(handler.attempt(back, stop, log, free).ok());
  CHECK(fx.files.served("web-1") == "01");

  // A lost execute: the run left in progress ends failed, saying why.
  auto midRun = fx.stored(d);
  midRun.last_status = "in_progress";
  midRun.last_action = "execute";
  REQUIRE(fx.store.distributions().update(midRun).ok());
  Job rollbackLost = fx.job(JobType::distribution_rollback, d);
  rollbackLost.status = JobStatus::dead;
  handler.abandoned(rollbackLost, log);  // not an execute: nothing to close
  CHECK(fx.stored(d).last_status == "in_progress");
  Job lost = fx.job(JobType::distribution_execute, d);
  lost.status = JobStatus::cancelled;
  handler.abandoned(lost, log);
  CHECK(fx.stored(d).last_status == "failed");
  CHECK(fx.stored(d).last_error == "cancelled while its worker was lost");

  // job.failed names the distribution, or the delivery of every distribution of the certificate
  // (not the certificate, whose renewal failures and recoveries are another matter), with the
  // certificate's variables.
  const auto one = handler.failureSubject(fx.job(JobType::distribution_execute, d));
  CHECK(one.subject == d);
  CHECK(one.details.at("distribution.id") == d);
  CHECK(one.details.at("certificate.id") == fx.cert.id);
  const auto every = handler.failureSubject(fx.job(JobType::distribution_execute));
  CHECK(every.subject == "distribution-job:" + fx.cert.id);
  CHECK(every.details.count("distribution.id") == 0);
}
