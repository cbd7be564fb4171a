// What the DistributionRunner's execute, rollback, dry-run and health check share (its two
// source files): the prepared distribution, the outcome of a run, and running one module call
// per target side by side. Internal to domain/services.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <exception>
#include <set>
#include <string>
#include <vector>

#include "domain/services/distribution_runner.hpp"

namespace certsteward::domain {

struct DistributionRunner::Prepared {
  ModuleConfig config;
  ports::DistributionModule* module = nullptr;
  std::vector<ports::TargetAccess> targets;
  std::vector<TargetResult> presets;  // per target: a failure found before the module ran
  std::string failure_code;           // the whole distribution cannot run
  std::string failure;
};

namespace detail {

inline std::string outcomeOf(const std::vector<TargetResult>& results) {
  const auto ok = std::count_if(results.begin(), results.end(), [](const TargetResult& r) {
    return r.status == "succeeded" && !r.rolled_back;
  });
  if (!results.empty() && ok == static_cast<std::int64_t>(results.size())) return "succeeded";
  return ok == 0 ? "failed" : "partial";
}

inline std::string firstError(const std::vector<TargetResult>& results) {
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
inline Result<CertificateVersion> versionOf(const Certificate& cert,
                                            const ports::SecretBox& secrets) {
  std::string key;
  if (!cert.private_key_sealed.empty()) {
    auto opened = secrets.open(cert.private_key_sealed);
    if (!opened) return makeError(ErrorCode::internal, "the private key cannot be decrypted");
    key = std::move(*opened);
  }
  return CertificateVersion{
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
inline void markPutBack(TargetResult& r, const ports::TargetOutcome& undone) {
  r.rolled_back = undone.ok;
  r.rollback_error = undone.ok ? "" : undone.error;
}

// Runs `op` on every target of `p` that has no preset failure (and is in `only`, when given),
// side by side.
template <class Prepared, class Op>
std::vector<TargetResult> runTargets(ports::Background& background, std::size_t concurrency,
                                     const ports::Clock& clock, Prepared& p,
                                     const std::set<std::string>* only, const char* okStatus,
                                     Op op) {
  std::vector<TargetResult> results(p.targets.size());
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
inline std::string leaseHolder(const Job& job) {
  return job.id + "/" + std::to_string(job.attempts);
}

}  // namespace detail
}  // namespace certsteward::domain
