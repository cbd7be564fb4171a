// What the DistributionRunner's execute, rollback, dry-run and health check share (its two
// source files): the prepared distribution, the outcome of a run, and running one module call
// per target side by side. Internal to services/.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <set>
#include <string>
#include <vector>

#include <certsteward/services/distribution_runner.hpp>

namespace certsteward::services {

struct DistributionRunner::Prepared {
  domain::ModuleConfig config;
  ports::DistributionModule* module = nullptr;
  std::vector<ports::TargetAccess> targets;
  std::vector<domain::TargetResult> presets;  // per target: a failure found before the module ran
  std::string failure_code;                   // the whole distribution cannot run
  std::string failure;
};

// One execute of one distribution, from the refreshed distribution to its recorded outcome.
struct DistributionRunner::ExecuteRun {
  const domain::Job& job;
  const domain::Certificate& cert;
  const domain::CertificateVersion& next;  // the version delivered
  domain::Distribution d;                  // as stored, updated as the run goes
  domain::Timestamp started{};
  Prepared p{};
  // Batches: more targets than the batch size run as a chain of children, one batch each.
  bool batched = false;
  std::size_t batch = 0;
  std::size_t batches = 1;
  std::set<std::string> slice{};                // the names of this batch's targets (batched only)
  std::vector<domain::TargetResult> results{};  // per target, in the configuration's order
  // Set when the run goes on in a queued batch child: that child's lease holder.
  std::string next_holder{};
  bool succeeded = false;

  bool handedOn() const { return !next_holder.empty(); }
  // The version the targets held before this run: what a put-back or rollback restores.
  const std::string& held() const {
    return d.deployed_serial == next.serial_number ? d.previous_sealed : d.deployed_sealed;
  }
  // How the run names the distribution (its module configuration, or its id when that is gone).
  std::string name() const {
    return p.failure_code == "MODULE_CONFIG_MISSING" ? d.module_config_id : p.config.name;
  }
};

namespace detail {

inline std::string outcomeOf(const std::vector<domain::TargetResult>& results) {
  const auto ok = std::count_if(results.begin(), results.end(), [](const domain::TargetResult& r) {
    return r.status == "succeeded" && !r.rolled_back;
  });
  if (!results.empty() && ok == static_cast<std::int64_t>(results.size())) return "succeeded";
  return ok == 0 ? "failed" : "partial";
}

inline std::string firstError(const std::vector<domain::TargetResult>& results) {
  for (const auto& r : results) {
    if (r.status == "failed")
      return r.target_name.empty() ? r.error : r.target_name + ": " + r.error;
  }
  for (const auto& r : results) {
    if (r.rolled_back) return r.target_name + ": rolled back after other targets failed";
  }
  return "no target";
}

// The issued certificate as the modules deliver it, its private key opened.
inline domain::Result<domain::CertificateVersion> versionOf(const domain::Certificate& cert,
                                                            const ports::SecretBox& secrets) {
  std::string key;
  if (!cert.private_key_sealed.empty()) {
    auto opened = secrets.open(cert.private_key_sealed);
    if (!opened)
      return makeError(domain::ErrorCode::internal, "the private key cannot be decrypted");
    key = std::move(*opened);
  }
  return domain::CertificateVersion{
      cert.id,         cert.common_name,     cert.sans,      cert.serial_number,
      cert.expires_at, cert.certificate_pem, cert.chain_pem, std::move(key)};
}

inline std::string joinLines(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items)
    out += (out.empty() ? "" : "\n") + i;
  return out;
}

inline std::set<std::string> splitLines(const std::string& text) {
  std::set<std::string> out;
  std::size_t from = 0;
  while (from <= text.size() && !text.empty()) {
    const auto nl = text.find('\n', from);
    out.insert(text.substr(from, nl == std::string::npos ? nl : nl - from));
    if (nl == std::string::npos) break;
    from = nl + 1;
  }
  return out;
}

// A module call; a module that throws is a failed target, never a crashed worker.
template <class Op>
ports::TargetOutcome guarded(Op op) {
  try {
    return op();
  } catch (const std::exception&) {
    return ports::TargetOutcome::failure("MODULE_ERROR", "the module failed unexpectedly");
  }
}

// What putting a target back did, on its result.
inline void markPutBack(domain::TargetResult& r, const ports::TargetOutcome& undone) {
  r.rolled_back = undone.ok;
  r.rollback_error = undone.ok ? "" : undone.error;
}

// Runs `op` on every target of `p` that has no preset failure (and is in `only`, when given),
// side by side.
template <class Prepared, class Op>
std::vector<domain::TargetResult> runTargets(ports::Background& background, std::size_t concurrency,
                                             const ports::Clock& clock, Prepared& p,
                                             const std::set<std::string>* only,
                                             const char* okStatus, Op op) {
  std::vector<domain::TargetResult> results(p.targets.size());
  background.forEach(p.targets.size(), concurrency, [&](std::size_t i) {
    auto& r = results[i];
    if (!p.presets[i].status.empty()) {
      r = p.presets[i];
      return;
    }
    r.target_name = p.targets[i].name;
    if (only != nullptr && only->count(r.target_name) == 0) {
      r.status = "skipped";
      r.error = "the last run did not change this target";
      return;
    }
    const auto started = clock.now();
    auto outcome = guarded([&] { return op(p.targets[i]); });
    r.duration_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(clock.now() - started).count();
    r.status = outcome.ok ? okStatus : "failed";
    r.error = std::move(outcome.error);
    r.error_code = std::move(outcome.error_code);
    r.changes = std::move(outcome.changes);
    r.changed = outcome.ok && outcome.changed;
  });
  return results;
}

// The holder of a distribution's lease: unique per attempt, so the same job reclaimed elsewhere
// after its lock expired does not share the lease with an attempt that may still be running.
inline std::string leaseHolder(const domain::Job& job) {
  return job.id + "/" + std::to_string(job.attempts);
}

}  // namespace detail
}  // namespace certsteward::services
