// Delivering a certificate through its distributions.
#include "domain/services/distribution_runner.hpp"

#include <algorithm>

namespace certsteward::domain {
namespace {

std::string outcomeOf(const std::vector<TargetResult>& results) {
  const auto ok = std::count_if(results.begin(), results.end(),
                                [](const TargetResult& r) { return r.status == "succeeded"; });
  if (!results.empty() && ok == static_cast<std::int64_t>(results.size())) return "succeeded";
  return ok == 0 ? "failed" : "partial";
}

std::string firstError(const std::vector<TargetResult>& results) {
  for (const auto& r : results) {
    if (r.status != "succeeded")
      return r.target_name.empty() ? r.error : r.target_name + ": " + r.error;
  }
  return "no target";
}

}  // namespace

Status DistributionRunner::execute(const Job& job, const Log& log) {
  if (!job.certificate_id) {
    return makeError(ErrorCode::invalid_argument, "the job names no certificate");
  }
  auto cert = p_.certificates.get(job.project_id, *job.certificate_id);
  if (!cert) return cert.error();
  if (cert->certificate_pem.empty()) {
    return makeError(ErrorCode::failed_precondition, "the certificate has not been issued yet");
  }
  auto distributions = p_.distributions.listForCertificate(job.project_id, cert->id);
  if (!distributions) return distributions.error();
  if (distributions->empty()) log(LogLevel::info, "the certificate has no distributions");

  std::string key;
  if (!cert->private_key_sealed.empty()) {
    auto opened = p_.secrets.open(cert->private_key_sealed);
    if (!opened) return makeError(ErrorCode::internal, "the private key cannot be decrypted");
    key = std::move(*opened);
  }
  const ports::Deliverable item{*cert, key};
  int failed = 0;
  std::string firstFailure;
  for (auto distribution : *distributions) {
    const Timestamp started = p_.clock.now();
    std::vector<TargetResult> results;
    auto config = p_.moduleConfigs.get(job.project_id, distribution.module_config_id);
    ports::DistributionModule* module = config ? p_.modules.find(config->module) : nullptr;
    if (!config) {
      results.push_back({"", "failed", config.error().message, "MODULE_CONFIG_MISSING", 0});
    } else if (module == nullptr) {
      results.push_back({"", "failed",
                         "this build has no distribution module '" + config->module + "'",
                         "MODULE_UNAVAILABLE", 0});
    } else {
      auto delivered = module->execute(*config, item);
      if (delivered) {
        results = std::move(*delivered);
      } else {
        results.push_back({"", "failed", delivered.error().message, "MODULE_ERROR", 0});
      }
    }
    const std::string outcome = outcomeOf(results);
    distribution.last_status = outcome;
    distribution.last_run_at = started;
    distribution.last_target_results = results;
    distribution.updated_at = p_.clock.now();
    if (outcome == "succeeded") {
      distribution.last_error.clear();
    } else {
      distribution.last_error = firstError(results);
      distribution.last_error_at = distribution.updated_at;
    }
    if (auto s = p_.distributions.update(distribution); !s) return s;
    const std::string name = config ? config->name : distribution.module_config_id;
    log(outcome == "succeeded" ? LogLevel::info : LogLevel::error,
        "distribution through '" + name + "': " + outcome +
            (outcome == "succeeded" ? "" : " (" + distribution.last_error + ")"));
    if (outcome != "succeeded") {
      ++failed;
      if (firstFailure.empty()) firstFailure = name + ": " + distribution.last_error;
      (void)p_.notifier.notify(Event{
          {},
          EventKind::distribution_failed,
          job.project_id,
          distribution.id,
          cert->common_name + " through '" + name + "' " + outcome + ": " + distribution.last_error,
          p_.clock.now()});
    }
  }
  if (failed > 0) {
    return makeError(ErrorCode::unavailable,
                     std::to_string(failed) + " of " + std::to_string(distributions->size()) +
                         " distribution(s) did not succeed; first: " + firstFailure);
  }
  // Delivered everywhere: the certificate is no longer pending (compare-and-set, retried).
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto current = p_.certificates.get(job.project_id, cert->id);
    if (!current) return current.error();
    if (!current->distribution_pending) return {};
    if (current->certificate_pem != cert->certificate_pem) return {};  // renewed meanwhile
    setDistributionPending(*current, false, p_.clock.now());
    current->updated_at = p_.clock.now();
    auto stored = p_.certificates.update(*current);
    if (stored) return {};
    if (stored.error().code != ErrorCode::conflict) return stored.error();
  }
  return makeError(ErrorCode::unavailable, "the certificate kept changing; try again");
}

}  // namespace certsteward::domain
