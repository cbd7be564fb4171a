// Putting the previous version back, and the checks that change nothing (dry-run, health).
#include <set>

#include <certsteward/services/distribution_run_steps.hpp>

namespace certsteward::services {

using namespace detail;

domain::Result<std::vector<std::string>> DistributionRunner::rollbackTargets(
    const domain::Distribution& d) {
  auto config = p_.moduleConfigs.get(d.project_id, d.module_config_id);
  if (!config) return config.error();
  auto* module = p_.modules.find(config->module);
  if (module == nullptr) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "this build has no distribution module '" + config->module + "'");
  }
  if (!module->supportsRollback()) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "module " + config->module + " cannot roll back");
  }
  if (d.last_status == "rolled_back") {
    return makeError(domain::ErrorCode::failed_precondition,
                     "already rolled back" +
                         (d.deployed_serial.empty() ? "" : " to serial " + d.deployed_serial) +
                         ": execute the distribution to deliver again");
  }
  std::vector<std::string> targets;
  for (const auto& r : d.last_target_results) {
    if (r.target_name.empty()) continue;
    // After an execute: the targets it changed and left changed. After a rollback that did not
    // finish: the targets it could not restore.
    const bool eligible = d.last_action == "rollback"
                              ? r.status == "failed"
                              : r.status == "succeeded" && !r.rolled_back && r.changed;
    if (eligible) targets.push_back(r.target_name);
  }
  if (targets.empty()) {
    return makeError(domain::ErrorCode::failed_precondition,
                     d.last_action == "rollback"
                         ? "nothing to restore: the last rollback left no target to retry"
                         : "nothing to restore: the last run changed no target");
  }
  if (module->rollbackNeedsPreviousVersion() && d.previous_sealed.empty()) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "nothing to restore: no version before serial " + d.deployed_serial +
                         " was delivered through this distribution");
  }
  return targets;
}

std::string joinTargetNames(const std::vector<std::string>& names) {
  return joinLines(names);
}

domain::Status DistributionRunner::rollback(const domain::Job& job, const Log& log) {
  const auto named = job.payload.find(kDistributionIdPayload);
  if (named == job.payload.end()) {
    return makeError(domain::ErrorCode::invalid_argument, "the job names no distribution");
  }
  return exclusively(named->second, leaseHolder(job),
                     [&](std::string&) { return rollbackOne(job, named->second, log); });
}

domain::Status DistributionRunner::rollbackOne(const domain::Job& job,
                                               const domain::Id& distributionId, const Log& log) {
  auto d = p_.distributions.get(job.project_id, distributionId);
  if (!d) return d.error();
  auto prepared = prepare(*d, log);
  if (!prepared) return prepared.error();
  auto& p = *prepared;
  if (!p.failure.empty()) return makeError(domain::ErrorCode::failed_precondition, p.failure);
  if (!p.module->supportsRollback()) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "module " + p.config.module + " cannot roll back");
  }
  std::optional<domain::CertificateVersion> previous;
  if (p.module->rollbackNeedsPreviousVersion()) {
    previous = openVersion(d->previous_sealed);
    if (!previous) {
      return makeError(
          domain::ErrorCode::failed_precondition,
          "nothing to restore: the version before serial " + d->deployed_serial + " is not known");
    }
  }
  const auto listed = job.payload.find(kRollbackTargetsPayload);
  const std::set<std::string> only =
      listed == job.payload.end() ? std::set<std::string>{} : splitLines(listed->second);
  log(domain::LogLevel::info, "rolling back '" + p.config.name + "' from serial " +
                                  d->deployed_serial +
                                  (d->previous_serial.empty() ? "" : " to " + d->previous_serial));
  auto results = runTargets(p_.background, options_.concurrency, p_.clock, p,
                            listed == job.payload.end() ? nullptr : &only, "succeeded",
                            [&](const ports::TargetAccess& t) {
                              return p.module->restore(t, previous ? &*previous : nullptr);
                            });
  int failed = 0;
  int restored = 0;
  for (auto& r : results) {
    if (r.status == "failed" && r.error_code == domain::target_error::nothing_to_restore) {
      r.status = "skipped";  // nothing was set aside there: it cannot be put back, nor retried
    }
    measure(p.config.module, "rollback", r);
    if (r.status == "failed") {
      ++failed;
      log(domain::LogLevel::error,
          "target " + r.target_name + ": rollback failed (" + r.error_code + "): " + r.error);
    } else if (r.status == "succeeded") {
      ++restored;
      log(domain::LogLevel::info, "target " + r.target_name + ": restored");
    } else if (!r.error.empty()) {
      log(domain::LogLevel::warn, "target " + r.target_name + ": " + r.error);
    }
  }
  const domain::Timestamp now = p_.clock.now();
  d->last_action = "rollback";
  d->last_run_at = now;
  d->last_target_results = results;
  d->updated_at = now;
  if (failed == 0 && restored > 0) {
    d->last_status = "rolled_back";
    d->last_error.clear();
    d->deployed_serial = d->previous_serial;
    d->deployed_sealed = d->previous_sealed;
    d->previous_serial.clear();
    d->previous_sealed.clear();
  } else if (failed == 0) {
    d->last_status = "failed";
    d->last_error = "rollback: nothing was set aside on any target: nothing to restore";
    d->last_error_at = now;
  } else {
    d->last_error = "rollback: " + firstError(results);
    d->last_error_at = now;
    d->last_status = restored == 0 ? "failed" : "partial";
  }
  if (auto s = p_.distributions.update(*d); !s) return s;
  if (failed > 0 || restored == 0) {
    (void)p_.notifier.notify(domain::Event{
        {},
        domain::EventKind::distribution_failed,
        job.project_id,
        d->id,
        "rollback through '" + p.config.name + "': " + d->last_error,
        now,
        {{"distribution.id", d->id}, {"module.name", p.config.name}, {"reason", d->last_error}},
        {}});
    if (failed == 0) return {};  // nothing to restore anywhere: said so; retrying cannot help
    return makeError(domain::ErrorCode::unavailable,
                     std::to_string(failed) + " target(s) not restored; " + d->last_error);
  }
  return {};
}

domain::Result<std::vector<domain::TargetResult>> DistributionRunner::dryRun(
    const domain::Distribution& d) {
  auto cert = p_.certificates.get(d.project_id, d.certificate_id);
  if (!cert) return cert.error();
  if (cert->certificate_pem.empty()) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "the certificate has not been issued yet: there is nothing to deliver");
  }
  auto version = versionOf(*cert, p_.secrets);
  if (!version) return version.error();
  const domain::CertificateVersion next = std::move(*version);
  auto prepared = prepare(d, [](domain::LogLevel, const std::string&) {});
  if (!prepared) return prepared.error();
  auto& p = *prepared;
  if (!p.failure.empty()) {
    return std::vector<domain::TargetResult>{{"", "failed", p.failure, p.failure_code, 0}};
  }
  return runTargets(p_.background, options_.concurrency, p_.clock, p, nullptr, "ok",
                    [&](const ports::TargetAccess& t) { return p.module->plan(t, next); });
}

domain::Result<std::vector<domain::TargetResult>> DistributionRunner::health(
    const domain::ModuleConfig& config) {
  domain::Distribution probe;
  probe.project_id = config.project_id;
  probe.module_config_id = config.id;
  auto prepared = prepare(probe, [](domain::LogLevel, const std::string&) {});
  if (!prepared) return prepared.error();
  auto& p = *prepared;
  if (!p.failure.empty()) {
    return std::vector<domain::TargetResult>{{"", "failed", p.failure, p.failure_code, 0}};
  }
  auto results = runTargets(p_.background, options_.concurrency, p_.clock, p, nullptr, "ok",
                            [&](const ports::TargetAccess& t) { return p.module->check(t); });
  for (const auto& r : results)
    measure(p.config.module, "health", r);
  return results;
}

}  // namespace certsteward::services
