// DistributionRunner: puts certificates on their targets through the distribution modules.
//
// - execute (the distribution_execute job): delivers the certificate (its private key opened
//   here, handed only to the module) through one distribution (payload `distribution_id`) or
//   every distribution of the certificate; targets run side by side up to `concurrency`. Each
//   distribution records per-target results and `succeeded`, `partial` or `failed`; with
//   auto_rollback_on_failure the targets that succeeded in a run where others failed are put
//   back, so a fleet never ends half old, half new. distribution.failed is raised for each that
//   did not fully succeed; the certificate's distribution_pending is cleared once every
//   distribution holds its current version. Anything short of that fails the attempt (retried
//   with backoff, dead after the last).
// A distribution with more targets than `batch_size` is delivered by a chain of batch children
// (`parent_id` the first job, payload `batch`): each runs its slice and stores its results, the
// next is queued when it is done, and the last one rolls back (auto_rollback_on_failure) and
// records the outcome over all targets.
// - rollback (the distribution_rollback job): puts back the version the last execute replaced,
//   on the targets that execute reached (payload `targets`).
// - dryRun and health: what execute would change, and whether each target is reachable; they
//   change nothing.
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <certsteward/domain/distribution.hpp>
#include <certsteward/domain/job.hpp>
#include <certsteward/ports/background.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/credential_repository.hpp>
#include <certsteward/ports/distribution_modules.hpp>
#include <certsteward/ports/distribution_repository.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/job_queue.hpp>
#include <certsteward/ports/leader_lock.hpp>
#include <certsteward/ports/metrics.hpp>
#include <certsteward/ports/module_config_repository.hpp>
#include <certsteward/ports/notifier.hpp>
#include <certsteward/ports/secret_box.hpp>

namespace certsteward::services {

// The payload of distribution jobs: the one distribution to run (else every distribution of the
// certificate), and for a rollback the targets to restore, one name per line.
inline constexpr const char* kDistributionIdPayload = "distribution_id";
inline constexpr const char* kRollbackTargetsPayload = "targets";
// A batch child of a delivery to many targets: which batch (0, 1, ...) it runs.
inline constexpr const char* kBatchPayload = "batch";
// The reason of the error a run gives when another run holds the distribution: the job waits
// and tries again without counting the attempt.
inline constexpr const char* kDistributionBusy = "distribution_busy";
std::string joinTargetNames(const std::vector<std::string>& names);

struct DistributionOptions {
  std::size_t concurrency = 8;                                 // targets at once, per distribution
  domain::Duration target_timeout = std::chrono::seconds{30};  // per network step of a target
  // More targets than this: the delivery runs as a chain of batch children, one batch per job
  // (each bounded in time, its progress stored), the last one deciding the outcome. 0: never.
  std::size_t batch_size = 100;
  domain::JobPolicy policy = {};  // of the batch children
  // How long a distribution's lease outlives its holder (renewed every third of it while the run
  // lasts): after a crash, another instance runs the distribution at most this much later.
  domain::Duration lease = std::chrono::seconds{60};
};

class DistributionRunner {
 public:
  struct Ports {
    ports::CertificateRepository& certificates;
    ports::DistributionRepository& distributions;
    ports::ModuleConfigRepository& moduleConfigs;
    ports::CredentialRepository& credentials;
    ports::DistributionModules& modules;
    const ports::SecretBox& secrets;
    ports::Notifier& notifier;
    const ports::Clock& clock;
    ports::Background& background;      // runs targets side by side
    ports::Metrics* metrics = nullptr;  // targets by module and outcome, and their durations
    // Where batch children go (both, or none: then every delivery runs in one job).
    ports::JobQueue* jobs = nullptr;
    ports::IdGenerator* ids = nullptr;
    // One run per distribution across instances: a lease per distribution, held by the job and
    // renewed while the run lasts (none: one run at a time in this process only).
    ports::LeaderLock* leases = nullptr;
  };
  using Log = std::function<void(domain::LogLevel, const std::string&)>;

  DistributionRunner(Ports ports, DistributionOptions options) : p_(ports), options_(options) {}

  domain::Status execute(const domain::Job& job, const Log& log);
  domain::Status rollback(const domain::Job& job, const Log& log);
  // A distribution_execute job that ended without its run ending (its worker was lost on the
  // last attempt, or it was cancelled meanwhile): the distributions it left `in_progress` become
  // `failed` with `why`, so none reads as still running.
  domain::Status abandon(const domain::Job& job, const std::string& why);
  domain::Result<std::vector<domain::TargetResult>> dryRun(
      const domain::Distribution& distribution);
  domain::Result<std::vector<domain::TargetResult>> health(const domain::ModuleConfig& config);

  // HTTP-01 through a webroot: the token file written on (or removed from) every target of the
  // module configuration, side by side. unavailable naming each target that failed (and why);
  // failed_precondition when the configuration is gone or its module writes no files.
  domain::Status putChallengeFiles(const domain::Id& projectId, const domain::Id& moduleConfigId,
                                   const std::string& token, const std::string& content,
                                   const Log& log);
  domain::Status removeChallengeFiles(const domain::Id& projectId, const domain::Id& moduleConfigId,
                                      const std::string& token, const Log& log);

  // failed_precondition (409) saying why the distribution cannot be rolled back now: the module
  // cannot, no run delivered anything, it was already rolled back, or the version to go back to
  // is unknown. Otherwise the targets a rollback must restore (those the last run reached).
  domain::Result<std::vector<std::string>> rollbackTargets(
      const domain::Distribution& distribution);

 private:
  struct Prepared;  // a distribution's configuration, module and opened targets
  // One HTTP-01 file step on every target of a module configuration (`writing`: a missing or
  // empty configuration is an error; removing: nothing to do).
  using TargetStep =
      std::function<ports::TargetOutcome(ports::DistributionModule&, const ports::TargetAccess&)>;
  domain::Status onChallengeTargets(const domain::Id& projectId, const domain::Id& moduleConfigId,
                                    const std::string& what, bool writing, const TargetStep& step,
                                    const Log& log);
  domain::Result<Prepared> prepare(const domain::Distribution& d, const Log& log);
  // One execute of one distribution (distribution_run_steps.hpp), and its steps in order.
  struct ExecuteRun;
  domain::Status executeOne(ExecuteRun& run, const Log& log);
  // Batched deliveries: the batch this job runs; or, at the start of a chain (or a retry of its
  // last batch), the first batch child queued and the run handed on to it.
  domain::Status chooseBatch(ExecuteRun& run, const Log& log);
  void logPlan(const ExecuteRun& run, const Log& log) const;
  domain::Status markInProgress(ExecuteRun& run);
  void deliver(ExecuteRun& run, const Log& log);
  void putBackUnverified(ExecuteRun& run);
  domain::Status handOnToNextBatch(ExecuteRun& run);
  void rollBackOnFailure(ExecuteRun& run, const Log& log);
  domain::Status record(ExecuteRun& run, const Log& log);
  domain::Status announce(const ExecuteRun& run);
  // Queues the batch child; the lease holder of its first run.
  domain::Result<std::string> queueBatch(const domain::Job& job, const domain::Distribution& d,
                                         const domain::Certificate& cert, std::size_t batch);
  void measure(const std::string& module, const char* action, const domain::TargetResult& r);
  // The version sealed in `sealed`, or nullopt.
  std::optional<domain::CertificateVersion> openVersion(const std::string& sealed) const;
  domain::Status clearPendingIfDelivered(const domain::Id& projectId,
                                         const domain::Id& certificateId);

  // Runs `work` while this job holds the distribution: one run per distribution at a time, in
  // this process and (with leases) across instances, since two workers could otherwise pick up
  // an execute and a rollback of the same targets. unavailable (retried later) when busy. When
  // `work` names a next holder (a batch child carries the run on), the lease is handed to it
  // for `lease` × 5 instead of being given up, so that nothing else starts between batches.
  domain::Status exclusively(const domain::Id& distributionId, const domain::Id& holder,
                             const std::function<domain::Status(std::string& nextHolder)>& work);
  domain::Status rollbackOne(const domain::Job& job, const domain::Id& distributionId,
                             const Log& log);

  Ports p_;
  DistributionOptions options_;
  std::mutex busyMutex_;
  std::set<domain::Id> busy_;
};

}  // namespace certsteward::services
