// Delivering certificates through their distributions (the rollback, dry-run and health check:
// distribution_rollback.cpp).
#include <certsteward/services/distribution_runner.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <set>

#include <certsteward/domain/distribution_settings.hpp>
#include <certsteward/domain/notification_rules.hpp>
#include <certsteward/services/certificate_update.hpp>
#include <certsteward/services/distribution_run_steps.hpp>

namespace certsteward::services {

using namespace detail;

domain::Result<DistributionRunner::Prepared> DistributionRunner::prepare(
    const domain::Distribution& d, const Log& log) {
  Prepared p;
  auto config = p_.moduleConfigs.get(d.project_id, d.module_config_id);
  if (!config) {
    if (config.error().code != domain::ErrorCode::not_found) return config.error();
    p.failure_code = "MODULE_CONFIG_MISSING";
    p.failure = "the module configuration no longer exists";
    return p;
  }
  p.config = std::move(*config);
  p.module = p_.modules.find(p.config.module);
  if (p.module == nullptr) {
    p.failure_code = domain::target_error::module_unavailable;
    p.failure = "this build has no distribution module '" + p.config.module + "'";
    return p;
  }
  for (const auto& t : p.config.targets) {
    ports::TargetAccess access;
    access.name = t.name;
    access.settings = effectiveSettings(p.config, t);
    access.timeout = options_.target_timeout;
    access.step = [log, name = t.name](const std::string& m) {
      log(domain::LogLevel::info, "target " + name + ": " + m);
    };
    domain::TargetResult preset;
    const auto refuse = [&](std::string why) {
      preset = {t.name, "failed", std::move(why), domain::target_error::credential_missing, 0};
    };
    if (!t.credential_id.empty()) {
      auto credential = p_.credentials.get(d.project_id, t.credential_id);
      if (!credential && credential.error().code != domain::ErrorCode::not_found) {
        return credential.error();
      }
      if (!credential) {
        refuse("the target's credential no longer exists");
      } else if (credential->secret_sealed.empty()) {
        refuse("the target's credential has no secret");
      } else if (auto opened = p_.secrets.open(credential->secret_sealed); !opened) {
        refuse("the target's credential cannot be decrypted");
      } else {
        access.credential = std::move(*credential);
        access.secret = std::move(*opened);
      }
    } else if (domain::moduleNeedsCredential(p.config.module)) {
      refuse("the target names no credential: module " + p.config.module + " needs one");
    }
    p.targets.push_back(std::move(access));
    p.presets.push_back(std::move(preset));
  }
  return p;
}

void DistributionRunner::measure(const std::string& module, const char* action,
                                 const domain::TargetResult& r) {
  if (p_.metrics == nullptr || r.status == "skipped") return;
  p_.metrics->increment("certsteward_distribution_targets_total",
                        {{"module", module}, {"action", action}, {"outcome", r.status}});
  p_.metrics->observe("certsteward_distribution_target_duration_seconds",
                      {{"module", module}, {"action", action}},
                      static_cast<double>(r.duration_ms) / 1000.0);
}

std::optional<domain::CertificateVersion> DistributionRunner::openVersion(
    const std::string& sealed) const {
  if (sealed.empty()) return std::nullopt;
  auto opened = p_.secrets.open(sealed);
  if (!opened) return std::nullopt;
  return domain::decodeVersion(*opened);
}

namespace {

domain::Error busy(const domain::Id& id) {
  return makeError(domain::ErrorCode::unavailable,
                   "another run of distribution " + id + " is in progress: tried again later",
                   kDistributionBusy);
}

}  // namespace

domain::Status DistributionRunner::exclusively(
    const domain::Id& distributionId, const domain::Id& holder,
    const std::function<domain::Status(std::string&)>& work) {
  {
    std::lock_guard lock(busyMutex_);
    if (!busy_.insert(distributionId).second) return busy(distributionId);
  }
  struct Local {
    DistributionRunner& r;
    const domain::Id& id;
    ~Local() {
      std::lock_guard lock(r.busyMutex_);
      r.busy_.erase(id);
    }
  } local{*this, distributionId};
  std::string nextHolder;
  if (p_.leases == nullptr) return work(nextHolder);
  const std::string name = "distribution:" + distributionId;
  auto held = p_.leases->tryAcquire(name, holder, p_.clock.now(), options_.lease);
  if (!held) return held.error();
  if (!*held) return busy(distributionId);
  domain::Status result;
  std::atomic<bool> lost{false};
  p_.background.whileRunning(
      options_.lease / 3,
      [&] {
        auto renewed = p_.leases->tryAcquire(name, holder, p_.clock.now(), options_.lease);
        if (!renewed || !*renewed) lost = true;
      },
      [&] { result = work(nextHolder); });
  (void)p_.leases->release(name, holder);  // else it lapses by itself
  if (result && !lost && !nextHolder.empty()) {
    // Handed on at once (a competitor would have to land between these two writes), for long
    // enough that the child is claimed from a busy lane; its own run renews it.
    (void)p_.leases->tryAcquire(name, nextHolder, p_.clock.now(), options_.lease * 5);
  }
  if (lost && result) {
    // Another run may have started meanwhile: what this one recorded may be stale. The retry
    // runs again (unchanged targets are left alone).
    return makeError(domain::ErrorCode::unavailable,
                     "the lease on distribution " + distributionId +
                         " could not be renewed during the run: it runs again");
  }
  return result;
}

domain::Status DistributionRunner::abandon(const domain::Job& job, const std::string& why) {
  std::vector<domain::Distribution> affected;
  if (const auto named = job.payload.find(kDistributionIdPayload); named != job.payload.end()) {
    auto d = p_.distributions.get(job.project_id, named->second);
    if (!d)
      return d.error().code == domain::ErrorCode::not_found ? domain::Status{}
                                                            : domain::Status{d.error()};
    affected.push_back(std::move(*d));
  } else if (job.certificate_id) {
    auto all = p_.distributions.listForCertificate(job.project_id, *job.certificate_id);
    if (!all) return all.error();
    affected = std::move(*all);
  }
  for (auto& d : affected) {
    if (d.last_status != "in_progress") continue;
    d.last_status = "failed";
    d.last_error = why.substr(0, 1000);
    d.updated_at = p_.clock.now();
    d.last_error_at = d.updated_at;
    if (auto s = p_.distributions.update(d); !s) return s;
  }
  return {};
}

domain::Result<std::string> DistributionRunner::queueBatch(const domain::Job& job,
                                                           const domain::Distribution& d,
                                                           const domain::Certificate& cert,
                                                           std::size_t batch) {
  domain::Job child = newJob(p_.ids->next(), job.project_id, domain::JobType::distribution_execute,
                             p_.clock.now(), options_.policy);
  child.certificate_id = cert.id;
  child.parent_id = job.parent_id && job.payload.count(kBatchPayload) > 0 ? *job.parent_id : job.id;
  child.payload[kDistributionIdPayload] = d.id;
  child.payload[kBatchPayload] = std::to_string(batch);
  child.idempotency_key =
      "distribute-batch:" + d.id + ":" + cert.serial_number + ":" + std::to_string(batch);
  auto queued = p_.jobs->enqueue(child);
  if (!queued) return queued.error();
  domain::Job claimed = queued->job;
  claimed.attempts += 1;  // as the claim that starts its run counts it
  return detail::leaseHolder(claimed);
}

// One execute of one distribution, read top to bottom: prepare the targets, decide the batch,
// say what it delivers, mark the run in progress, deliver, put back what did not verify, hand on to
// the next batch or roll back on failure, record the outcome, announce it.
domain::Status DistributionRunner::executeOne(ExecuteRun& run, const Log& log) {
  if (auto fresh = p_.distributions.get(run.d.project_id, run.d.id); fresh) {
    run.d = std::move(*fresh);  // what the run before this one recorded
  }
  run.started = p_.clock.now();
  auto prepared = prepare(run.d, log);
  if (!prepared) return prepared.error();
  run.p = std::move(*prepared);
  if (!run.p.failure.empty()) {
    run.results.push_back({"", "failed", run.p.failure, run.p.failure_code, 0});
  } else if (run.p.targets.empty()) {
    run.results.push_back(
        {"", "failed", "the module configuration has no targets", "NO_TARGETS", 0});
  } else {
    if (auto s = chooseBatch(run, log); !s || run.handedOn()) return s;
    logPlan(run, log);
    if (auto s = markInProgress(run); !s) return s;
    deliver(run, log);
    putBackUnverified(run);
    if (run.batched && run.batch + 1 < run.batches) return handOnToNextBatch(run);
    rollBackOnFailure(run, log);
  }
  if (auto s = record(run, log); !s) return s;
  return announce(run);
}

domain::Status DistributionRunner::chooseBatch(ExecuteRun& run, const Log& log) {
  const std::size_t n = run.p.targets.size();
  const std::size_t size = options_.batch_size;
  run.batched = p_.jobs != nullptr && p_.ids != nullptr && size > 0 && n > size;
  run.batches = run.batched ? (n + size - 1) / size : 1;
  if (!run.batched) return {};
  const auto named = run.job.payload.find(kBatchPayload);
  if (named == run.job.payload.end()) {  // the start: the first batch child runs it
    auto queued = queueBatch(run.job, run.d, run.cert, 0);
    if (!queued) return queued.error();
    log(domain::LogLevel::info, "'" + run.p.config.name + "': " + std::to_string(n) +
                                    " targets in " + std::to_string(run.batches) + " batches of " +
                                    std::to_string(size) + ", one batch child after the other");
    run.next_holder = *queued;
    return {};
  }
  run.batch = static_cast<std::size_t>(std::stoul(named->second));
  if (run.batch >= run.batches) {
    return makeError(domain::ErrorCode::invalid_argument, "no such batch");
  }
  if (run.batch > 0 && run.d.last_status != "in_progress") {
    // The chain already ended (this is a retry of its last batch): deliver to every target
    // again, from the first batch, as a retry of a one-job delivery would.
    auto queued = queueBatch(run.job, run.d, run.cert, 0);
    if (!queued) return queued.error();
    log(domain::LogLevel::info,
        "'" + run.p.config.name + "': the batches start again from the first");
    run.next_holder = *queued;
    return {};
  }
  for (std::size_t i = run.batch * size; i < std::min(n, (run.batch + 1) * size); ++i)
    run.slice.insert(run.p.targets[i].name);
  return {};
}

// The run is on record before any target is touched: a process killed from here on leaves the
// distribution `in_progress` (not `never_run` or the last outcome) until the run that takes its
// job again records what the targets hold. Its previous_serial stays what this run found
// (deployed_serial moves only when a run ends).
domain::Status DistributionRunner::markInProgress(ExecuteRun& run) {
  if (run.d.last_status == "in_progress") return {};
  run.d.last_status = "in_progress";
  run.d.last_action = "execute";
  run.d.last_run_at = run.started;
  run.d.updated_at = p_.clock.now();
  return p_.distributions.update(run.d);
}

// What this run delivers, to which targets (said before the run goes on record).
void DistributionRunner::logPlan(const ExecuteRun& run, const Log& log) const {
  const auto& p = run.p;
  const std::size_t n = p.targets.size();
  log(domain::LogLevel::info,
      "delivering serial " + run.next.serial_number + " through '" + p.config.name + "' (" +
          p.config.module + ") to " +
          (run.batched ? "batch " + std::to_string(run.batch + 1) + " of " +
                             std::to_string(run.batches) + " (" + std::to_string(run.slice.size()) +
                             " of " + std::to_string(n) + " targets)"
                       : std::to_string(n) + " target(s)"));
}

void DistributionRunner::deliver(ExecuteRun& run, const Log& log) {
  const auto& p = run.p;
  const std::size_t n = p.targets.size();
  run.results = runTargets(
      p_.background, options_.concurrency, p_.clock, p, run.batched ? &run.slice : nullptr,
      "succeeded", [&](const ports::TargetAccess& t) { return p.module->deliver(t, run.next); });
  if (run.batched) {  // this batch's results over what the earlier batches stored
    std::vector<domain::TargetResult> merged(n);
    const bool continuing = run.batch > 0 && run.d.last_target_results.size() == n;
    for (std::size_t i = 0; i < n; ++i) {
      if (run.slice.count(p.targets[i].name) > 0) {
        merged[i] = std::move(run.results[i]);
      } else if (continuing) {
        merged[i] = run.d.last_target_results[i];
      } else {
        merged[i] = {p.targets[i].name, "pending", "", "", 0};
      }
    }
    run.results = std::move(merged);
  }
  for (const auto& r : run.results) {
    if (run.batched && run.slice.count(r.target_name) == 0) continue;
    measure(p.config.module, "execute", r);
    if (r.status == "succeeded") {
      log(domain::LogLevel::info,
          "target " + r.target_name + ": delivered in " + std::to_string(r.duration_ms) + " ms");
    } else if (r.status == "failed") {
      log(domain::LogLevel::error,
          "target " + r.target_name + ": failed (" + r.error_code + "): " + r.error);
    }
  }
}

// A module that takes the previous version back from us (haproxy) cannot leave a target as it
// was when the served certificate was wrong after the change: put it back here.
void DistributionRunner::putBackUnverified(ExecuteRun& run) {
  const auto& p = run.p;
  if (!p.module->rollbackNeedsPreviousVersion() || !p.module->supportsRollback()) return;
  std::optional<domain::CertificateVersion> earlier;
  for (std::size_t i = 0; i < run.results.size(); ++i) {
    auto& r = run.results[i];
    if (r.error_code != domain::target_error::verify_failed || r.rolled_back ||
        !r.rollback_error.empty()) {
      continue;
    }
    if (!earlier) earlier = openVersion(run.held());
    if (!earlier) break;
    markPutBack(r, guarded([&] { return p.module->restore(p.targets[i], &*earlier); }));
  }
}

// Not the last batch: its results stored, and the next batch queued (to which the lease goes).
domain::Status DistributionRunner::handOnToNextBatch(ExecuteRun& run) {
  run.d.last_status = "in_progress";
  run.d.last_action = "execute";
  run.d.last_run_at = run.started;
  run.d.last_target_results = run.results;
  run.d.updated_at = p_.clock.now();
  if (auto s = p_.distributions.update(run.d); !s) return s;
  auto queued = queueBatch(run.job, run.d, run.cert, run.batch + 1);
  if (!queued) return queued.error();
  run.next_holder = *queued;
  return {};
}

// auto_rollback_on_failure: the targets this run changed go back to what they held before,
// when any target failed.
void DistributionRunner::rollBackOnFailure(ExecuteRun& run, const Log& log) {
  const auto& p = run.p;
  const bool anyFailed =
      std::any_of(run.results.begin(), run.results.end(),
                  [](const domain::TargetResult& r) { return r.status == "failed"; });
  if (!anyFailed || !p.config.auto_rollback_on_failure) return;
  std::set<std::string> reached;
  for (const auto& r : run.results) {  // the targets this run changed
    if (r.status == "succeeded" && r.changed && !r.rolled_back) reached.insert(r.target_name);
  }
  if (!reached.empty()) {
    log(domain::LogLevel::warn, "some targets failed: rolling back the " +
                                    std::to_string(reached.size()) + " that succeeded");
  }
  const auto previous = openVersion(run.held());  // what an automatic rollback goes back to
  for (std::size_t i = 0; i < run.results.size(); ++i) {
    auto& r = run.results[i];
    if (reached.count(r.target_name) == 0) continue;
    ports::TargetOutcome undone;
    if (!p.module->supportsRollback()) {
      undone = ports::TargetOutcome::failure("", "module " + p.config.module + " cannot roll back");
    } else if (p.module->rollbackNeedsPreviousVersion() && !previous) {
      undone = ports::TargetOutcome::failure(
          domain::target_error::nothing_to_restore,
          "no earlier version was delivered through this distribution");
    } else {
      undone =
          guarded([&] { return p.module->restore(p.targets[i], previous ? &*previous : nullptr); });
    }
    markPutBack(r, undone);
    log(undone.ok ? domain::LogLevel::info : domain::LogLevel::error,
        "target " + r.target_name +
            (undone.ok ? ": rolled back" : ": rollback failed: " + undone.error));
  }
}

// The outcome on the distribution: the delivered version (and the one it replaced) when any
// target holds it now, the per-target results, the last error.
domain::Status DistributionRunner::record(ExecuteRun& run, const Log& log) {
  auto& d = run.d;
  const std::string outcome = outcomeOf(run.results);
  const bool delivered = std::any_of(
      run.results.begin(), run.results.end(),
      [](const domain::TargetResult& r) { return r.status == "succeeded" && !r.rolled_back; });
  if (delivered && d.deployed_serial != run.next.serial_number) {
    auto sealed = p_.secrets.seal(encodeVersion(run.next));
    if (!sealed) return sealed.error();
    d.previous_serial = d.deployed_serial;
    d.previous_sealed = d.deployed_sealed;
    d.deployed_serial = run.next.serial_number;
    d.deployed_sealed = std::move(*sealed);
  }
  d.last_status = outcome;
  d.last_action = "execute";
  d.last_run_at = run.started;
  d.last_target_results = run.results;
  d.updated_at = p_.clock.now();
  if (outcome == "succeeded") {
    d.last_error.clear();
  } else {
    d.last_error = firstError(run.results);
    d.last_error_at = d.updated_at;
  }
  if (auto s = p_.distributions.update(d); !s) return s;
  run.succeeded = outcome == "succeeded";
  log(run.succeeded ? domain::LogLevel::info : domain::LogLevel::error,
      "distribution through '" + run.name() + "': " + outcome +
          (run.succeeded ? "" : " (" + d.last_error + ")"));
  return {};
}

// distribution.succeeded, or distribution.failed (and the attempt fails, unavailable).
domain::Status DistributionRunner::announce(const ExecuteRun& run) {
  const auto& d = run.d;
  const std::string name = run.name();
  auto details = certificateVariables(run.cert, p_.clock.now());
  details["distribution.id"] = d.id;
  details["module.name"] = name;
  if (!run.succeeded) {
    details["reason"] = d.last_error;
    (void)p_.notifier.notify(domain::Event{
        {},
        domain::EventKind::distribution_failed,
        run.job.project_id,
        d.id,
        run.cert.common_name + " through '" + name + "' " + d.last_status + ": " + d.last_error,
        p_.clock.now(),
        std::move(details),
        {}});
    return makeError(domain::ErrorCode::unavailable, name + ": " + d.last_error);
  }
  (void)p_.notifier.notify(domain::Event{{},
                                         domain::EventKind::distribution_succeeded,
                                         run.job.project_id,
                                         d.id,
                                         run.cert.common_name + " delivered through '" + name +
                                             "': every target holds serial " +
                                             run.cert.serial_number,
                                         p_.clock.now(),
                                         std::move(details),
                                         {}});
  return {};
}

domain::Status DistributionRunner::execute(const domain::Job& job, const Log& log) {
  if (!job.certificate_id) {
    return makeError(domain::ErrorCode::invalid_argument, "the job names no certificate");
  }
  auto cert = p_.certificates.get(job.project_id, *job.certificate_id);
  if (!cert) return cert.error();
  if (cert->certificate_pem.empty()) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "the certificate has not been issued yet");
  }
  std::vector<domain::Distribution> distributions;
  if (const auto named = job.payload.find(kDistributionIdPayload); named != job.payload.end()) {
    auto one = p_.distributions.get(job.project_id, named->second);
    if (!one) return one.error();
    if (one->certificate_id != cert->id) {
      return makeError(domain::ErrorCode::invalid_argument,
                       "the distribution is not the certificate's");
    }
    distributions.push_back(std::move(*one));
  } else {
    auto all = p_.distributions.listForCertificate(job.project_id, cert->id);
    if (!all) return all.error();
    distributions = std::move(*all);
    if (distributions.empty()) log(domain::LogLevel::info, "the certificate has no distributions");
  }

  auto version = versionOf(*cert, p_.secrets);
  if (!version) return version.error();
  const domain::CertificateVersion next = std::move(*version);
  int failed = 0;
  int busyOnes = 0;
  std::string firstFailure;
  for (auto& distribution : distributions) {
    bool ok = false;
    bool deferred = false;
    const domain::Status s =
        exclusively(distribution.id, leaseHolder(job), [&](std::string& nextHolder) {
          ExecuteRun run{job, *cert, next, distribution};
          const domain::Status ran = executeOne(run, log);
          ok = run.succeeded;
          nextHolder = run.next_holder;
          deferred = run.handedOn();
          return ran;
        });
    if (s && deferred) continue;  // a batch child carries on
    if (!s) ok = false;           // e.g. the lease was lost after the targets were reached
    if (!ok) {
      ++failed;
      if (!s && s.error().reason == kDistributionBusy) ++busyOnes;
      if (firstFailure.empty()) firstFailure = s ? std::string("failed") : s.error().message;
      if (!s && s.error().code != domain::ErrorCode::unavailable) return s;  // the store itself
    }
  }
  if (failed > 0) {
    // Only held by other runs: the job waits for them without spending an attempt.
    return makeError(domain::ErrorCode::unavailable,
                     std::to_string(failed) + " of " + std::to_string(distributions.size()) +
                         " distribution(s) did not succeed; first: " + firstFailure,
                     busyOnes == failed ? kDistributionBusy : "");
  }
  return clearPendingIfDelivered(job.project_id, cert->id);
}

domain::Status DistributionRunner::clearPendingIfDelivered(const domain::Id& projectId,
                                                           const domain::Id& certificateId) {
  auto cleared = updateCertificate(
      p_.certificates, p_.clock, projectId, certificateId,
      [&](domain::Certificate& current) -> domain::Result<bool> {
        if (!current.distribution_pending) return false;
        auto all = p_.distributions.listForCertificate(projectId, certificateId);
        if (!all) return all.error();
        for (const auto& d : *all) {
          if (d.last_status != "succeeded" || d.deployed_serial != current.serial_number) {
            return false;
          }
        }
        setDistributionPending(current, false, p_.clock.now());
        return true;
      });
  if (!cleared) return cleared.error();
  return {};
}

namespace {

// The outcome of a challenge-file step over every target: ok, or which failed and why.
domain::Status challengeOutcome(const std::vector<domain::TargetResult>& results,
                                const std::string& what) {
  std::string failures;
  for (const auto& r : results) {
    if (r.status != "failed") continue;
    failures += (failures.empty() ? "" : "; ") +
                (r.target_name.empty() ? "" : r.target_name + ": ") + r.error;
  }
  if (failures.empty()) return {};
  return makeError(domain::ErrorCode::unavailable, what + " failed on " + failures);
}

}  // namespace

domain::Status DistributionRunner::onChallengeTargets(const domain::Id& projectId,
                                                      const domain::Id& moduleConfigId,
                                                      const std::string& what, bool writing,
                                                      const TargetStep& step, const Log& log) {
  domain::Distribution probe;
  probe.project_id = projectId;
  probe.module_config_id = moduleConfigId;
  auto prepared = prepare(probe, log);
  if (!prepared) return prepared.error();
  auto& p = *prepared;
  if (!p.failure.empty()) {
    if (!writing) return {};  // nothing of it is left to clean
    return makeError(domain::ErrorCode::failed_precondition,
                     "HTTP-01 through module configuration " + moduleConfigId + ": " + p.failure);
  }
  if (p.targets.empty() && writing) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "HTTP-01 through module configuration " + p.config.name +
                         ": it has no targets to write the token file to");
  }
  const auto results =
      runTargets(p_.background, options_.concurrency, p_.clock, p, nullptr, "succeeded",
                 [&](const ports::TargetAccess& t) { return step(*p.module, t); });
  return challengeOutcome(results, what + " through " + p.config.name);
}

domain::Status DistributionRunner::putChallengeFiles(const domain::Id& projectId,
                                                     const domain::Id& moduleConfigId,
                                                     const std::string& token,
                                                     const std::string& content, const Log& log) {
  return onChallengeTargets(
      projectId, moduleConfigId, "writing the HTTP-01 file", true,
      [&](ports::DistributionModule& m, const ports::TargetAccess& t) {
        return m.putChallengeFile(t, token, content);
      },
      log);
}

domain::Status DistributionRunner::removeChallengeFiles(const domain::Id& projectId,
                                                        const domain::Id& moduleConfigId,
                                                        const std::string& token, const Log& log) {
  return onChallengeTargets(
      projectId, moduleConfigId, "removing the HTTP-01 file", false,
      [&](ports::DistributionModule& m, const ports::TargetAccess& t) {
        return m.removeChallengeFile(t, token);
      },
      log);
}

}  // namespace certsteward::services
