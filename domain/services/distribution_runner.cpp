// Delivering certificates through their distributions (the rollback, dry-run and health check:
// distribution_rollback.cpp).
#include "domain/services/distribution_runner.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <set>

#include "domain/distribution_settings.hpp"
#include "domain/notification_rules.hpp"
#include "domain/services/distribution_run_steps.hpp"

namespace certsteward::domain {

using namespace detail;

Result<DistributionRunner::Prepared> DistributionRunner::prepare(const Distribution& d,
                                                                 const Log& log) {
  Prepared p;
  auto config = p_.moduleConfigs.get(d.project_id, d.module_config_id);
  if (!config) {
    if (config.error().code != ErrorCode::not_found) return config.error();
    p.failure_code = "MODULE_CONFIG_MISSING";
    p.failure = "the module configuration no longer exists";
    return p;
  }
  p.config = std::move(*config);
  p.module = p_.modules.find(p.config.module);
  if (p.module == nullptr) {
    p.failure_code = target_error::module_unavailable;
    p.failure = "this build has no distribution module '" + p.config.module + "'";
    return p;
  }
  for (const auto& t : p.config.targets) {
    ports::TargetAccess access;
    access.name = t.name;
    access.settings = effectiveSettings(p.config, t);
    access.timeout = options_.target_timeout;
    access.step = [log, name = t.name](const std::string& m) {
      log(LogLevel::info, "target " + name + ": " + m);
    };
    TargetResult preset;
    const auto refuse = [&](std::string why) {
      preset = {t.name, "failed", std::move(why), target_error::credential_missing, 0};
    };
    if (!t.credential_id.empty()) {
      auto credential = p_.credentials.get(d.project_id, t.credential_id);
      if (!credential && credential.error().code != ErrorCode::not_found) {
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
    } else if (moduleNeedsCredential(p.config.module)) {
      refuse("the target names no credential: module " + p.config.module + " needs one");
    }
    p.targets.push_back(std::move(access));
    p.presets.push_back(std::move(preset));
  }
  return p;
}

void DistributionRunner::measure(const std::string& module, const char* action,
                                 const TargetResult& r) {
  if (p_.metrics == nullptr || r.status == "skipped") return;
  p_.metrics->increment("certsteward_distribution_targets_total",
                        {{"module", module}, {"action", action}, {"outcome", r.status}});
  p_.metrics->observe("certsteward_distribution_target_duration_seconds",
                      {{"module", module}, {"action", action}},
                      static_cast<double>(r.duration_ms) / 1000.0);
}

std::optional<CertificateVersion> DistributionRunner::openVersion(const std::string& sealed) const {
  if (sealed.empty()) return std::nullopt;
  auto opened = p_.secrets.open(sealed);
  if (!opened) return std::nullopt;
  return decodeVersion(*opened);
}

namespace {

Error busy(const Id& id) {
  return makeError(ErrorCode::unavailable,
                   "another run of distribution " + id + " is in progress: tried again later",
                   kDistributionBusy);
}

}  // namespace

Status DistributionRunner::exclusively(const Id& distributionId, const Id& holder,
                                       const std::function<Status(std::string&)>& work) {
  {
    std::lock_guard lock(busyMutex_);
    if (!busy_.insert(distributionId).second) return busy(distributionId);
  }
  struct Local {
    DistributionRunner& r;
    const Id& id;
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
  Status result;
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
    return makeError(ErrorCode::unavailable,
                     "the lease on distribution " + distributionId +
                         " could not be renewed during the run: it runs again");
  }
  return result;
}

Status DistributionRunner::abandon(const Job& job, const std::string& why) {
  std::vector<Distribution> affected;
  if (const auto named = job.payload.find(kDistributionIdPayload); named != job.payload.end()) {
    auto d = p_.distributions.get(job.project_id, named->second);
    if (!d) return d.error().code == ErrorCode::not_found ? Status{} : Status{d.error()};
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

Result<std::string> DistributionRunner::queueBatch(const Job& job, const Distribution& d,
                                                   const Certificate& cert, std::size_t batch) {
  Job child = newJob(p_.ids->next(), job.project_id, JobType::distribution_execute, p_.clock.now(),
                     options_.policy);
  child.certificate_id = cert.id;
  child.parent_id = job.parent_id && job.payload.count(kBatchPayload) > 0 ? *job.parent_id : job.id;
  child.payload[kDistributionIdPayload] = d.id;
  child.payload[kBatchPayload] = std::to_string(batch);
  child.idempotency_key =
      "distribute-batch:" + d.id + ":" + cert.serial_number + ":" + std::to_string(batch);
  auto queued = p_.jobs->enqueue(child);
  if (!queued) return queued.error();
  Job claimed = queued->job;
  claimed.attempts += 1;  // as the claim that starts its run counts it
  return detail::leaseHolder(claimed);
}

Status DistributionRunner::executeOne(const Job& job, const Certificate& cert,
                                      const CertificateVersion& next, Distribution d,
                                      const Log& log, bool& succeeded, std::string& nextHolder) {
  if (auto fresh = p_.distributions.get(d.project_id, d.id); fresh) {
    d = std::move(*fresh);  // what the run before this one recorded
  }
  const Timestamp started = p_.clock.now();
  auto prepared = prepare(d, log);
  if (!prepared) return prepared.error();
  auto& p = *prepared;
  std::vector<TargetResult> results;
  if (!p.failure.empty()) {
    results.push_back({"", "failed", p.failure, p.failure_code, 0});
  } else if (p.targets.empty()) {
    results.push_back({"", "failed", "the module configuration has no targets", "NO_TARGETS", 0});
  } else {
    const std::size_t n = p.targets.size();
    const std::size_t size = options_.batch_size;
    const bool batched = p_.jobs != nullptr && p_.ids != nullptr && size > 0 && n > size;
    const std::size_t batches = batched ? (n + size - 1) / size : 1;
    std::size_t batch = 0;
    if (batched) {
      const auto named = job.payload.find(kBatchPayload);
      if (named == job.payload.end()) {  // the start: the first batch child runs it
        auto queued = queueBatch(job, d, cert, 0);
        if (!queued) return queued.error();
        log(LogLevel::info, "'" + p.config.name + "': " + std::to_string(n) + " targets in " +
                                std::to_string(batches) + " batches of " + std::to_string(size) +
                                ", one batch child after the other");
        nextHolder = *queued;
        return {};
      }
      batch = static_cast<std::size_t>(std::stoul(named->second));
      if (batch >= batches) return makeError(ErrorCode::invalid_argument, "no such batch");
      if (batch > 0 && d.last_status != "in_progress") {
        // The chain already ended (this is a retry of its last batch): deliver to every target
        // again, from the first batch, as a retry of a one-job delivery would.
        auto queued = queueBatch(job, d, cert, 0);
        if (!queued) return queued.error();
        log(LogLevel::info, "'" + p.config.name + "': the batches start again from the first");
        nextHolder = *queued;
        return {};
      }
    }
    std::set<std::string> slice;
    for (std::size_t i = batch * size; batched && i < std::min(n, (batch + 1) * size); ++i)
      slice.insert(p.targets[i].name);
    log(LogLevel::info,
        "delivering serial " + next.serial_number + " through '" + p.config.name + "' (" +
            p.config.module + ") to " +
            (batched
                 ? "batch " + std::to_string(batch + 1) + " of " + std::to_string(batches) + " (" +
                       std::to_string(slice.size()) + " of " + std::to_string(n) + " targets)"
                 : std::to_string(n) + " target(s)"));
    // The run is on record before any target is touched: a process killed from here on leaves
    // the distribution `in_progress` (not `never_run` or the last outcome) until the run that
    // takes its job again records what the targets hold. Its previous_serial stays what this
    // run found (deployed_serial moves only when a run ends).
    if (d.last_status != "in_progress") {
      d.last_status = "in_progress";
      d.last_action = "execute";
      d.last_run_at = started;
      d.updated_at = p_.clock.now();
      if (auto s = p_.distributions.update(d); !s) return s;
    }
    results = runTargets(p_.background, options_.concurrency, p_.clock, p,
                         batched ? &slice : nullptr, "succeeded",
                         [&](const ports::TargetAccess& t) { return p.module->deliver(t, next); });
    if (batched) {  // this batch's results over what the earlier batches stored
      std::vector<TargetResult> merged(n);
      const bool continuing = batch > 0 && d.last_target_results.size() == n;
      for (std::size_t i = 0; i < n; ++i) {
        if (slice.count(p.targets[i].name) > 0) {
          merged[i] = std::move(results[i]);
        } else if (continuing) {
          merged[i] = d.last_target_results[i];
        } else {
          merged[i] = {p.targets[i].name, "pending", "", "", 0};
        }
      }
      results = std::move(merged);
    }
    for (const auto& r : results) {
      if (batched && slice.count(r.target_name) == 0) continue;
      measure(p.config.module, "execute", r);
      if (r.status == "succeeded") {
        log(LogLevel::info,
            "target " + r.target_name + ": delivered in " + std::to_string(r.duration_ms) + " ms");
      } else if (r.status == "failed") {
        log(LogLevel::error,
            "target " + r.target_name + ": failed (" + r.error_code + "): " + r.error);
      }
    }
    // A module that takes the previous version back from us (haproxy) cannot leave a target
    // as it was when the served certificate was wrong after the change: put it back here.
    const std::string& held =
        d.deployed_serial == next.serial_number ? d.previous_sealed : d.deployed_sealed;
    if (p.module->rollbackNeedsPreviousVersion() && p.module->supportsRollback()) {
      std::optional<CertificateVersion> earlier;
      for (std::size_t i = 0; i < results.size(); ++i) {
        if (results[i].error_code != target_error::verify_failed || results[i].rolled_back ||
            !results[i].rollback_error.empty()) {
          continue;
        }
        if (!earlier) earlier = openVersion(held);
        if (!earlier) break;
        markPutBack(results[i],
                    guarded([&] { return p.module->restore(p.targets[i], &*earlier); }));
      }
    }
    if (batched && batch + 1 < batches) {  // stored, and the next batch queued
      d.last_status = "in_progress";
      d.last_action = "execute";
      d.last_run_at = started;
      d.last_target_results = results;
      d.updated_at = p_.clock.now();
      if (auto s = p_.distributions.update(d); !s) return s;
      auto queued = queueBatch(job, d, cert, batch + 1);
      if (!queued) return queued.error();
      nextHolder = *queued;
      return {};
    }
    const bool anyFailed = std::any_of(results.begin(), results.end(),
                                       [](const TargetResult& r) { return r.status == "failed"; });
    const std::string& before = held;  // what an automatic rollback goes back to
    if (anyFailed && p.config.auto_rollback_on_failure) {
      std::set<std::string> reached;
      for (const auto& r : results) {  // the targets this run changed
        if (r.status == "succeeded" && r.changed && !r.rolled_back) reached.insert(r.target_name);
      }
      if (!reached.empty()) {
        log(LogLevel::warn, "some targets failed: rolling back the " +
                                std::to_string(reached.size()) + " that succeeded");
      }
      const auto previous = openVersion(before);
      for (std::size_t i = 0; i < results.size(); ++i) {
        if (reached.count(results[i].target_name) == 0) continue;
        ports::TargetOutcome undone;
        if (!p.module->supportsRollback()) {
          undone =
              ports::TargetOutcome::failure("", "module " + p.config.module + " cannot roll back");
        } else if (p.module->rollbackNeedsPreviousVersion() && !previous) {
          undone = ports::TargetOutcome::failure(
              target_error::nothing_to_restore,
              "no earlier version was delivered through this distribution");
        } else {
          undone = guarded(
              [&] { return p.module->restore(p.targets[i], previous ? &*previous : nullptr); });
        }
        markPutBack(results[i], undone);
        log(undone.ok ? LogLevel::info : LogLevel::error,
            "target " + results[i].target_name +
                (undone.ok ? ": rolled back" : ": rollback failed: " + undone.error));
      }
    }
  }
  const std::string outcome = outcomeOf(results);
  const bool delivered = std::any_of(results.begin(), results.end(), [](const TargetResult& r) {
    return r.status == "succeeded" && !r.rolled_back;
  });
  if (delivered && d.deployed_serial != next.serial_number) {
    auto sealed = p_.secrets.seal(encodeVersion(next));
    if (!sealed) return sealed.error();
    d.previous_serial = d.deployed_serial;
    d.previous_sealed = d.deployed_sealed;
    d.deployed_serial = next.serial_number;
    d.deployed_sealed = std::move(*sealed);
  }
  d.last_status = outcome;
  d.last_action = "execute";
  d.last_run_at = started;
  d.last_target_results = results;
  d.updated_at = p_.clock.now();
  if (outcome == "succeeded") {
    d.last_error.clear();
  } else {
    d.last_error = firstError(results);
    d.last_error_at = d.updated_at;
  }
  if (auto s = p_.distributions.update(d); !s) return s;
  const std::string name =
      p.failure_code == "MODULE_CONFIG_MISSING" ? d.module_config_id : p.config.name;
  log(outcome == "succeeded" ? LogLevel::info : LogLevel::error,
      "distribution through '" + name + "': " + outcome +
          (outcome == "succeeded" ? "" : " (" + d.last_error + ")"));
  succeeded = outcome == "succeeded";
  auto details = certificateVariables(cert, p_.clock.now());
  details["distribution.id"] = d.id;
  details["module.name"] = name;
  if (!succeeded) {
    details["reason"] = d.last_error;
    (void)p_.notifier.notify(
        Event{{},
              EventKind::distribution_failed,
              job.project_id,
              d.id,
              cert.common_name + " through '" + name + "' " + outcome + ": " + d.last_error,
              p_.clock.now(),
              std::move(details),
              {}});
    return makeError(ErrorCode::unavailable, name + ": " + d.last_error);
  }
  (void)p_.notifier.notify(Event{{},
                                 EventKind::distribution_succeeded,
                                 job.project_id,
                                 d.id,
                                 cert.common_name + " delivered through '" + name +
                                     "': every target holds serial " + cert.serial_number,
                                 p_.clock.now(),
                                 std::move(details),
                                 {}});
  return {};
}

Status DistributionRunner::execute(const Job& job, const Log& log) {
  if (!job.certificate_id) {
    return makeError(ErrorCode::invalid_argument, "the job names no certificate");
  }
  auto cert = p_.certificates.get(job.project_id, *job.certificate_id);
  if (!cert) return cert.error();
  if (cert->certificate_pem.empty()) {
    return makeError(ErrorCode::failed_precondition, "the certificate has not been issued yet");
  }
  std::vector<Distribution> distributions;
  if (const auto named = job.payload.find(kDistributionIdPayload); named != job.payload.end()) {
    auto one = p_.distributions.get(job.project_id, named->second);
    if (!one) return one.error();
    if (one->certificate_id != cert->id) {
      return makeError(ErrorCode::invalid_argument, "the distribution is not the certificate's");
    }
    distributions.push_back(std::move(*one));
  } else {
    auto all = p_.distributions.listForCertificate(job.project_id, cert->id);
    if (!all) return all.error();
    distributions = std::move(*all);
    if (distributions.empty()) log(LogLevel::info, "the certificate has no distributions");
  }

  auto version = versionOf(*cert, p_.secrets);
  if (!version) return version.error();
  const CertificateVersion next = std::move(*version);
  int failed = 0;
  int busyOnes = 0;
  std::string firstFailure;
  for (auto& distribution : distributions) {
    bool ok = false;
    bool deferred = false;
    const Status s = exclusively(distribution.id, leaseHolder(job), [&](std::string& nextHolder) {
      const Status run = executeOne(job, *cert, next, distribution, log, ok, nextHolder);
      deferred = !nextHolder.empty();
      return run;
    });
    if (s && deferred) continue;  // a batch child carries on
    if (!s) ok = false;           // e.g. the lease was lost after the targets were reached
    if (!ok) {
      ++failed;
      if (!s && s.error().reason == kDistributionBusy) ++busyOnes;
      if (firstFailure.empty()) firstFailure = s ? std::string("failed") : s.error().message;
      if (!s && s.error().code != ErrorCode::unavailable) return s;  // the store itself
    }
  }
  if (failed > 0) {
    // Only held by other runs: the job waits for them without spending an attempt.
    return makeError(ErrorCode::unavailable,
                     std::to_string(failed) + " of " + std::to_string(distributions.size()) +
                         " distribution(s) did not succeed; first: " + firstFailure,
                     busyOnes == failed ? kDistributionBusy : "");
  }
  return clearPendingIfDelivered(job.project_id, cert->id);
}

Status DistributionRunner::clearPendingIfDelivered(const Id& projectId, const Id& certificateId) {
  for (int attempt = 0; attempt < 5; ++attempt) {  // compare-and-set, retried
    auto current = p_.certificates.get(projectId, certificateId);
    if (!current) return current.error();
    if (!current->distribution_pending) return {};
    auto all = p_.distributions.listForCertificate(projectId, certificateId);
    if (!all) return all.error();
    for (const auto& d : *all) {
      if (d.last_status != "succeeded" || d.deployed_serial != current->serial_number) return {};
    }
    setDistributionPending(*current, false, p_.clock.now());
    current->updated_at = p_.clock.now();
    auto stored = p_.certificates.update(*current);
    if (stored) return {};
    if (stored.error().code != ErrorCode::conflict) return stored.error();
  }
  return makeError(ErrorCode::unavailable, "the certificate kept changing; try again");
}

}  // namespace certsteward::domain
