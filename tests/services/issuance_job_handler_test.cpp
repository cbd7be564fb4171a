// The issuance and renewal jobs in process (IssuanceJobHandler under a JobRunner), with a
// scripted CA on the memory store and the real clock: the heartbeat keeps a slow attempt's job
// from being taken, failures walk the job and certificate tables with the reason kept, and a
// cancel seen by the heartbeat stops a failing job from retrying.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <certsteward/services/distribution_job_handler.hpp>
#include <certsteward/services/expiration_check.hpp>
#include <certsteward/testing/fake_distribution.hpp>
#include "services/issuance_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;
using namespace std::chrono_literals;
using namespace certsteward::issuance_test;

TEST_CASE("issuance jobs: the heartbeat keeps a slow attempt's job from being taken") {
  Fixture fx;
  fx.ca.delay = 800ms;  // well past the 300 ms lock
  std::thread runner([&] { CHECK(*fx.worker.runOnce(Lane::standard, "worker-a")); });
  std::this_thread::sleep_for(500ms);
  auto other =
      fx.store.jobs().claim(Lane::standard, JobContext{fx.clock.now(), "worker-b", "", fx.policy});
  REQUIRE(other.ok());
  CHECK_FALSE(other->claimed.has_value());
  runner.join();
  CHECK(fx.storedJob().status == JobStatus::completed);
  CHECK(fx.ca.orders() == 1);
  const auto cert = fx.storedCert();
  CHECK(cert.status == CertificateStatus::active);
  CHECK(cert.serial_number == "1");
  CHECK(cert.private_key_sealed.starts_with("v1:"));
  CHECK(cert.private_key_sealed.find("PRIVATE") == std::string::npos);
  CHECK(cert.next_renewal_at.has_value());
}

TEST_CASE(
    "issuance jobs: a job whose earlier attempt stored the certificate is done, nothing ordered") {
  Fixture fx;
  // What an attempt killed after storing the certificate, before marking the job done, leaves.
  auto cert = fx.storedCert();
  cert.status = CertificateStatus::active;
  cert.issued_at = fx.clock.now();
  REQUIRE(fx.store.certificates().update(cert).ok());
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  CHECK(fx.storedJob().status == JobStatus::completed);
  CHECK(fx.ca.orders() == 0);
  CHECK(fx.storedCert().status == CertificateStatus::active);
}

TEST_CASE("issuance jobs: failures keep the reason, retry with backoff, then the job is dead") {
  Fixture fx;
  fx.ca.failure =
      makeError(ErrorCode::resource_exhausted, "CA refused: too many orders", "rateLimited");
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  CHECK(fx.storedJob().status == JobStatus::failed);
  CHECK(fx.storedCert().status == CertificateStatus::issuing);
  CHECK(fx.storedCert().last_error == "CA refused: too many orders");
  CHECK_FALSE(*fx.worker.runOnce(Lane::standard, "worker-a"));  // backing off (200 ms)
  std::this_thread::sleep_for(300ms);
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  const auto dead = fx.storedJob();
  CHECK(dead.status == JobStatus::dead);
  CHECK(dead.attempts == 2);
  CHECK(dead.error_msg == "CA refused: too many orders");
  const auto logs = fx.store.jobLogs().list(fx.job.id, PageRequest{1, 100});
  REQUIRE(logs.ok());
  bool sawDead = false;
  for (const auto& e : logs->items)
    sawDead = sawDead || e.message.find("no attempts left") != std::string::npos;
  CHECK(sawDead);
  // One job.failed event for the dead job, with the CA's reason; an issuance raises no
  // cert.renewal_failed.
  const auto events = fx.store.events().list("p1", PageRequest{1, 100});
  REQUIRE(events.ok());
  REQUIRE(events->items.size() == 1);
  CHECK(events->items[0].kind == EventKind::job_failed);
  CHECK(events->items[0].resource_id == fx.job.id);
  CHECK(events->items[0].message ==
        "issue_certificate (www.example.test) is dead: CA refused: too many orders");
  CHECK_FALSE(events->items[0].id.empty());
}

TEST_CASE(
    "issuance worker: a renewal that runs out of attempts raises job.failed and "
    "cert.renewal_failed") {
  Fixture fx;
  // The certificate is issued and a renewal was asked for; its renewal job fails every attempt.
  const auto cert = fx.awaitingRenewal();
  Job renewal = newJob("renew-1", "p1", JobType::renew_certificate, fx.clock.now(), fx.policy);
  renewal.certificate_id = cert.id;
  renewal.max_attempts = 1;
  REQUIRE(fx.store.jobs().enqueue(renewal).ok());
  fx.ca.failure = makeError(ErrorCode::unavailable, "the CA cannot be reached");
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  CHECK(fx.store.jobs().get("p1", "renew-1")->status == JobStatus::dead);
  CHECK(fx.storedCert().status == CertificateStatus::renewal_failed);
  const auto events = fx.store.events().list("p1", PageRequest{1, 100});
  REQUIRE(events.ok());
  REQUIRE(events->items.size() == 2);
  std::map<EventKind, Event> byKind;
  for (const auto& e : events->items)
    byKind[e.kind] = e;
  REQUIRE(byKind.count(EventKind::job_failed) == 1);
  REQUIRE(byKind.count(EventKind::cert_renewal_failed) == 1);
  CHECK(byKind[EventKind::job_failed].resource_id == "renew-1");
  CHECK(byKind[EventKind::cert_renewal_failed].resource_id == fx.cert.id);
  CHECK(byKind[EventKind::cert_renewal_failed].message ==
        "www.example.test: renewal failed: the CA cannot be reached");
}

TEST_CASE("issuance jobs: a cancel seen by the heartbeat stops a failing job from retrying") {
  Fixture fx;
  fx.ca.delay = 500ms;
  fx.ca.failure = makeError(ErrorCode::unavailable, "the CA cannot be reached");
  std::thread runner([&] { CHECK(*fx.worker.runOnce(Lane::standard, "worker-a")); });
  std::this_thread::sleep_for(50ms);
  REQUIRE(fx.store.jobs()
              .apply(fx.job.id, JobEvent::cancel, JobContext{fx.clock.now(), "", "", fx.policy})
              .ok());
  runner.join();
  CHECK(fx.storedJob().status == JobStatus::cancelled);
}

TEST_CASE("issuance jobs: a cancel stops a long attempt at its next step") {
  Fixture fx;
  fx.ca.delay = 60s;  // a CA that never answers in the test's lifetime
  std::thread runner([&] { CHECK(*fx.worker.runOnce(Lane::standard, "worker-a")); });
  std::this_thread::sleep_for(50ms);
  REQUIRE(fx.store.jobs()
              .apply(fx.job.id, JobEvent::cancel, JobContext{fx.clock.now(), "", "", fx.policy})
              .ok());
  runner.join();  // the heartbeat (every 100 ms) sees the cancel and raises the stop signal
  CHECK(fx.ca.stopsSeen() == 1);
  CHECK(fx.storedJob().status == JobStatus::cancelled);
  CHECK(fx.storedCert().status == CertificateStatus::issuing);
}

TEST_CASE("issuance jobs: released at shutdown, a running job goes back to pending uncounted") {
  Fixture fx;
  fx.ca.delay = 60s;
  std::thread runner([&] { CHECK(*fx.worker.runOnce(Lane::standard, "worker-a")); });
  REQUIRE(waitUntilActive(fx));
  fx.worker.releaseRunning();
  runner.join();
  const auto job = fx.storedJob();
  CHECK(job.status == JobStatus::pending);
  CHECK(job.attempts == 0);
  CHECK(job.locked_by.empty());
  CHECK_FALSE(job.lock_expires_at.has_value());
  CHECK(job.next_run_at <= fx.clock.now());
  CHECK(job.error_msg.empty());
  CHECK(fx.ca.stopsSeen() == 1);
  CHECK(logMentions(fx, "the attempt is not counted"));
  // A releasing worker claims nothing more; another instance's worker takes the job.
  CHECK_FALSE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  CHECK(fx.storedJob().status == JobStatus::pending);
}

TEST_CASE(
    "expiry check: cert.expiring_soon once per certificate in the window, fanned out in "
    "batches") {
  Fixture fx;
  REQUIRE(fx.store.jobs()
              .apply(fx.job.id, JobEvent::cancel, JobContext{fx.clock.now(), "", "", fx.policy})
              .ok());  // the fixture's issuance job is out of the way
  std::set<Id> inWindow, outside;
  const auto issued = [&](const std::string& name, Duration expiresIn) {
    Certificate c;
    c.id = fx.ids.next();
    c.project_id = "p1";
    c.common_name = name;
    c.sans = {name};
    c.status = CertificateStatus::active;
    c.expires_at = fx.clock.now() + expiresIn;
    c.created_at = c.updated_at = fx.clock.now();
    REQUIRE(fx.store.certificates().create(c).ok());
    return c.id;
  };
  for (int d = 1; d <= 5; ++d)
    inWindow.insert(issued("soon" + std::to_string(d) + ".test", d * 24h));
  inWindow.insert(issued("gone.test", -24h));  // already expired: still reported
  outside.insert(issued("later.test", 30 * 24h));
  outside.insert(issued("much-later.test", 60 * 24h));
  Certificate other;  // another project's certificate never shows up in p1's events
  other.id = fx.ids.next();
  other.project_id = "p2";
  other.common_name = other.sans.emplace_back("other.test");
  other.expires_at = fx.clock.now() + 24h;
  REQUIRE(fx.store.certificates().create(other).ok());

  CertificatePolicy small;
  small.expiry_check_batch = 2;
  ExpirationCheck expiry{
      {fx.store.certificates(), fx.store.jobs(), fx.notifier, fx.ids, fx.clock}, small, fx.policy};
  JobRunner worker{fx.runnerPorts({&expiry}), fx.policy};
  Job check =
      newJob("check-1", "p1", JobType::certificate_expiration_check, fx.clock.now(), fx.policy);
  REQUIRE(fx.store.jobs().enqueue(check).ok());
  int ran = 0;
  while (ran < 20 && *worker.runOnce(Lane::standard, "worker-a"))
    ++ran;
  CHECK(ran == 4);  // the parent, then 3 batches of 2

  CHECK(fx.store.jobs().get("p1", "check-1")->status == JobStatus::completed);
  ports::JobFilter f;
  f.type = JobType::certificate_expiration_check;
  const auto jobs = fx.store.jobs().list("p1", f, PageRequest{1, 100});
  REQUIRE(jobs.ok());
  CHECK(jobs->total == 4);
  for (const auto& j : jobs->items) {
    CHECK(j.status == JobStatus::completed);
    if (j.id != "check-1") CHECK(j.parent_id == std::optional<Id>("check-1"));
  }
  const auto logs = fx.store.jobLogs().list("check-1", PageRequest{1, 100});
  REQUIRE(logs.ok());
  CHECK(std::any_of(logs->items.begin(), logs->items.end(), [](const JobLogEntry& e) {
    return e.message.find("fanned out into 3 batch job(s) of 2") != std::string::npos;
  }));

  const auto events = fx.store.events().list("p1", PageRequest{1, 100});
  REQUIRE(events.ok());
  std::multiset<Id> seen;
  for (const auto& e : events->items) {
    CHECK(e.kind == EventKind::cert_expiring_soon);
    seen.insert(e.resource_id);
    if (e.message.starts_with("gone.test"))
      CHECK(e.message.find("expired at") != std::string::npos);
    if (e.message.starts_with("soon3.test"))
      CHECK(e.message.find("(in 3 day(s))") != std::string::npos);
  }
  CHECK(seen == std::multiset<Id>(inWindow.begin(), inWindow.end()));
  CHECK(fx.store.events().list("p2", PageRequest{1, 100})->total == 0);
}

TEST_CASE(
    "issuance worker: a challenge record left behind becomes a cleanup_dns job that retries") {
  Fixture fx;
  fx.addZone();
  fx.ca.proveWithDns = true;
  fx.dns.failCleanups(2);  // the removal after the order, then the job's first attempt
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  CHECK(fx.storedJob().status == JobStatus::completed);  // the certificate does not wait for it
  CHECK(fx.storedCert().status == CertificateStatus::active);
  CHECK(fx.dns.size() == 1);
  CHECK(logMentions(fx, "could not be removed (the DNS server did not answer)"));

  ports::JobFilter f;
  f.type = JobType::cleanup_dns;
  auto cleanups = fx.store.jobs().list("p1", f, PageRequest{1, 10});
  REQUIRE(cleanups.ok());
  REQUIRE(cleanups->items.size() == 1);
  const Job cleanup = cleanups->items[0];
  CHECK(cleanup.parent_id == std::optional<Id>(fx.job.id));
  CHECK(cleanup.payload.at("name") == "_acme-challenge.www.example.test.");
  CHECK(cleanup.payload.at("value") == "token-1");

  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));  // fails once: backoff
  CHECK(fx.store.jobs().get("p1", cleanup.id)->status == JobStatus::failed);
  CHECK(fx.dns.size() == 1);
  std::this_thread::sleep_for(300ms);
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  CHECK(fx.store.jobs().get("p1", cleanup.id)->status == JobStatus::completed);
  CHECK(fx.dns.size() == 0);
  CHECK(fx.dns.cleanupCalls() == 3);
}

TEST_CASE(
    "distribution: issued with distributions -> pending, delivered on the distribution "
    "lane, partial failures retried and reported") {
  Fixture fx;
  testing::FakeDistributionModule module;
  testing::FakeDistributionModules modules;
  modules.add("fake", module);
  ModuleConfig config;
  config.id = fx.ids.next();
  config.project_id = "p1";
  config.name = "web servers";
  config.module = "fake";
  config.targets = {{"web-1", {}, ""}, {"web-2", {}, ""}};
  REQUIRE(fx.store.moduleConfigs().create(config).ok());
  Distribution d;
  d.id = fx.ids.next();
  d.project_id = "p1";
  d.certificate_id = fx.cert.id;
  d.module_config_id = config.id;
  REQUIRE(fx.store.distributions().create(d).ok());
  ModuleConfig unknown = config;  // a module this build does not have
  unknown.id = fx.ids.next();
  unknown.name = "mainframe";
  unknown.module = "mainframe";
  DistributionRunner runner{
      {fx.store.certificates(), fx.store.distributions(), fx.store.moduleConfigs(),
       fx.store.credentials(), modules, fx.box, fx.notifier, fx.clock, fx.background},
      DistributionOptions{}};
  DistributionJobHandler distributionJobs{runner, fx.store.certificates(), fx.clock};
  IssuanceJobHandler issuance{fx.issuancePorts(&fx.store.distributions()), fx.policy};
  JobRunner worker{fx.runnerPorts({&issuance, &distributionJobs}), fx.policy};

  REQUIRE(*worker.runOnce(Lane::standard, "worker-a"));
  auto cert = fx.storedCert();
  CHECK(cert.status == CertificateStatus::active);
  CHECK(cert.distribution_pending);
  ports::JobFilter f;
  f.type = JobType::distribution_execute;
  auto jobs = fx.store.jobs().list("p1", f, PageRequest{1, 10});
  REQUIRE(jobs->items.size() == 1);
  const Job deliver = jobs->items[0];
  CHECK(deliver.idempotency_key == distributionIdempotencyKey(cert));
  CHECK(deliver.parent_id == std::optional<Id>(fx.job.id));
  CHECK_FALSE(*worker.runOnce(Lane::standard, "worker-a"));  // not on the standard lane

  module.failTarget("web-2", "CONNECT_FAILED", 1);  // web-2 refuses once
  REQUIRE(*worker.runOnce(Lane::distribution, "worker-d"));
  CHECK(fx.store.jobs().get("p1", deliver.id)->status == JobStatus::failed);
  auto stored = fx.store.distributions().get("p1", d.id);
  REQUIRE(stored.ok());
  CHECK(stored->last_status == "partial");
  CHECK(stored->last_error == "web-2: deliver failed on web-2 (CONNECT_FAILED)");
  REQUIRE(stored->last_target_results.size() == 2);
  CHECK(stored->last_target_results[1].error_code == "CONNECT_FAILED");
  CHECK(fx.storedCert().distribution_pending);
  // The module got the private key, opened (never the sealed form).
  CHECK(module.lastKey().find("PRIVATE KEY") != std::string::npos);
  auto events = fx.store.events().list("p1", PageRequest{1, 10});  // newest first
  REQUIRE(events->items.size() == 2);
  CHECK(events->items[1].kind == EventKind::cert_issued);
  CHECK(events->items[0].kind == EventKind::distribution_failed);
  CHECK(events->items[0].resource_id == d.id);

  std::this_thread::sleep_for(300ms);  // the backoff
  REQUIRE(*worker.runOnce(Lane::distribution, "worker-d"));
  CHECK(fx.store.jobs().get("p1", deliver.id)->status == JobStatus::completed);
  CHECK(fx.store.distributions().get("p1", d.id)->last_status == "succeeded");
  CHECK(fx.store.distributions().get("p1", d.id)->last_error.empty());
  CHECK_FALSE(fx.storedCert().distribution_pending);
  CHECK(module.calls("deliver") == 4);  // two targets, twice
  CHECK(module.served("web-2") == cert.serial_number);

  // A module this build lacks: recorded failed with the reason, and the job keeps failing.
  REQUIRE(fx.store.moduleConfigs().create(unknown).ok());
  Distribution d2 = d;
  d2.id = fx.ids.next();
  d2.module_config_id = unknown.id;
  REQUIRE(fx.store.distributions().create(d2).ok());
  Job again = newJob("deliver-2", "p1", JobType::distribution_execute, fx.clock.now(), fx.policy);
  again.certificate_id = fx.cert.id;
  REQUIRE(fx.store.jobs().enqueue(again).ok());
  REQUIRE(*worker.runOnce(Lane::distribution, "worker-d"));
  const auto missing = fx.store.distributions().get("p1", d2.id);
  CHECK(missing->last_status == "failed");
  CHECK(missing->last_error == "this build has no distribution module 'mainframe'");
  REQUIRE(missing->last_target_results.size() == 1);
  CHECK(missing->last_target_results[0].error_code == "MODULE_UNAVAILABLE");
  CHECK(fx.store.jobs().get("p1", "deliver-2")->error_msg.find("1 of 2 distribution(s)") !=
        std::string::npos);
}

TEST_CASE("issuance jobs: waiting for a record polls at most once per second slice") {
  Fixture fx;
  fx.addZone();
  fx.ca.proveWithDns = true;
  fx.dns.visibleFrom(std::chrono::steady_clock::now() + 1500ms);
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  CHECK(fx.storedJob().status == JobStatus::completed);
  // Visible after 1.5 s, asked in 1 s slices: 2 or 3 questions, not a busy loop.
  CHECK(fx.dns.waitCalls() >= 2);
  CHECK(fx.dns.waitCalls() <= 3);
}

TEST_CASE(
    "dns cleanup job handler: removes the named record through its zone, refuses a bare job") {
  Fixture fx;
  CHECK(fx.dnsCleanups.types() == std::vector<JobType>{JobType::cleanup_dns});
  StopSignal stop;
  AttemptNotes notes;
  std::vector<std::string> lines;
  const auto log = [&](LogLevel, const std::string& m) { lines.push_back(m); };
  Job bare = newJob("clean-0", "p1", JobType::cleanup_dns, fx.clock.now(), fx.policy);
  const auto refused = fx.dnsCleanups.attempt(bare, stop, log, notes);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::invalid_argument);

  // No zone covers the name yet: said so, nothing removed.
  Job job = newJob("clean-1", "p1", JobType::cleanup_dns, fx.clock.now(), fx.policy);
  job.payload["name"] = "_acme-challenge.www.example.test.";
  job.payload["value"] = "token-9";
  const auto noZone = fx.dnsCleanups.attempt(job, stop, log, notes);
  REQUIRE_FALSE(noZone.ok());
  CHECK(noZone.error().message.find("no zone of this project covers") != std::string::npos);

  fx.addZone();
  DnsCredential any;
  auto provider = fx.dns.make(any, "");
  REQUIRE(provider.ok());
  REQUIRE((*provider)
              ->present(ports::TxtRecord{"example.test.", job.payload["name"], "token-9", 60})
              .ok());
  REQUIRE(fx.dns.size() == 1);
  REQUIRE(fx.dnsCleanups.attempt(job, stop, log, notes).ok());
  CHECK(fx.dns.size() == 0);
  CHECK_FALSE(notes.deferred);
  REQUIRE_FALSE(lines.empty());
  CHECK(lines.back() == "removed the TXT record _acme-challenge.www.example.test.");
}
