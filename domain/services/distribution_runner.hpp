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

#include "domain/distribution.hpp"
#include "domain/job.hpp"
#include "ports/background.hpp"
#include "ports/certificate_repository.hpp"
#include "ports/clock.hpp"
#include "ports/credential_repository.hpp"
#include "ports/distribution_modules.hpp"
#include "ports/distribution_repository.hpp"
#include "ports/id_generator.hpp"
#include "ports/job_queue.hpp"
#include "ports/leader_lock.hpp"
#include "ports/metrics.hpp"
#include "ports/module_config_repository.hpp"
#include "ports/notifier.hpp"
#include "ports/secret_box.hpp"

namespace certsteward::domain {

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
  std::size_t concurrency = 8;                         // targets at once, per distribution
  Duration target_timeout = std::chrono::seconds{30};  // per network step of a target
  // More targets than this: the delivery runs as a chain of batch children, one batch per job
  // (each bounded in time, its progress stored), the last one deciding the outcome. 0: never.
  std::size_t batch_size = 100;
  JobPolicy policy = {};  // of the batch children
  // How long a distribution's lease outlives its holder (renewed every third of it while the run
  // lasts): after a crash, another instance runs the distribution at most this much later.
  Duration lease = std::chrono::seconds{60};
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
  using Log = std::function<void(LogLevel, const std::string&)>;

  DistributionRunner(Ports ports, DistributionOptions options) : p_(ports), options_(options) {}

  Status execute(const Job& job, const Log& log);
  Status rollback(const Job& job, const Log& log);
  // A distribution_execute job that ended without its run ending (its worker was lost on the
  // last attempt, or it was cancelled meanwhile): the distributions it left `in_progress` become
  // `failed` with `why`, so none reads as still running.
  Status abandon(const Job& job, const std::string& why);
  Result<std::vector<TargetResult>> dryRun(const Distribution& distribution);
  Result<std::vector<TargetResult>> health(const ModuleConfig& config);

  // failed_precondition (409) saying why the distribution cannot be rolled back now: the module
  // cannot, no run delivered anything, it was already rolled back, or the version to go back to
  // is unknown. Otherwise the targets a rollback must restore (those the last run reached).
  Result<std::vector<std::string>> rollbackTargets(const Distribution& distribution);

 private:
  struct Prepared;  // a distribution's configuration, module and opened targets
  Result<Prepared> prepare(const Distribution& d, const Log& log);
  // `deferred`: the delivery continues in a batch child (neither succeeded nor failed yet).
  // `nextHolder`: set when the run goes on in a queued batch child — the lease holder of that
  // child's first run, to which the distribution's lease is handed.
  Status executeOne(const Job& job, const Certificate& cert, const CertificateVersion& next,
                    Distribution distribution, const Log& log, bool& succeeded,
                    std::string& nextHolder);
  // Queues the batch child; the lease holder of its first run.
  Result<std::string> queueBatch(const Job& job, const Distribution& d, const Certificate& cert,
                                 std::size_t batch);
  void measure(const std::string& module, const char* action, const TargetResult& r);
  // The version sealed in `sealed`, or nullopt.
  std::optional<CertificateVersion> openVersion(const std::string& sealed) const;
  Status clearPendingIfDelivered(const Id& projectId, const Id& certificateId);

  // Runs `work` while this job holds the distribution: one run per distribution at a time, in
  // this process and (with leases) across instances, since two workers could otherwise pick up
  // an execute and a rollback of the same targets. unavailable (retried later) when busy. When
  // `work` names a next holder (a batch child carries the run on), the lease is handed to it
  // for `lease` × 5 instead of being given up, so that nothing else starts between batches.
  Status exclusively(const Id& distributionId, const Id& holder,
                     const std::function<Status(std::string& nextHolder)>& work);
  Status rollbackOne(const Job& job, const Id& distributionId, const Log& log);

  Ports p_;
  DistributionOptions options_;
  std::mutex busyMutex_;
  std::set<Id> busy_;
};

}  // namespace certsteward::domain
