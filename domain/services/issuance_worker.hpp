// IssuanceWorker: runs the jobs a worker claims. It claims, keeps the heartbeat, writes the job
// log and moves the job through its table (docs/architecture.md). issue_certificate and
// renew_certificate (through the Issuer and the project's DNS zones) it runs itself, and queues
// a cleanup_dns job for each challenge record whose removal failed; every other type goes to the
// JobHandler registered for it (Ports::handlers: DNS clean-up, distribution jobs, the expiry
// check, deliveries). Every
// step a person should be able to follow goes to the job log. Thread-safe: workers on any number
// of threads share one.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "domain/certificate.hpp"
#include "domain/job.hpp"
#include "domain/services/job_handler.hpp"
#include "domain/stop_signal.hpp"
#include "ports/acme_account_repository.hpp"
#include "ports/background.hpp"
#include "ports/ca_activity_log.hpp"
#include "ports/certificate_repository.hpp"
#include "ports/clock.hpp"
#include "ports/distribution_repository.hpp"
#include "ports/dns_credential_repository.hpp"
#include "ports/dns_provider_factory.hpp"
#include "ports/id_generator.hpp"
#include "ports/issuer.hpp"
#include "ports/job_log_repository.hpp"
#include "ports/job_queue.hpp"
#include "ports/metrics.hpp"
#include "ports/notifier.hpp"
#include "ports/public_suffixes.hpp"
#include "ports/secret_box.hpp"
#include "ports/zone_repository.hpp"

namespace certsteward::domain {

class IssuanceWorker {
 public:
  struct Ports {
    ports::JobQueue& jobs;
    ports::JobLogRepository& logs;
    ports::CertificateRepository& certificates;
    ports::AcmeAccountRepository& accounts;
    ports::ZoneRepository& zones;
    ports::DnsCredentialRepository& dnsCredentials;
    ports::DnsProviderFactory& dnsProviders;
    ports::Issuer& issuer;
    const ports::SecretBox& secrets;
    const ports::Clock& clock;
    ports::Background& background;      // runs the heartbeat beside an attempt
    ports::Notifier& notifier;          // job.failed, cert.renewal_failed, cert.expiring_soon
    ports::IdGenerator& ids;            // batch children of a fan-out
    ports::Metrics* metrics = nullptr;  // attempts, durations, issuance latency (optional)
    // distribution_pending after issuance (none: certificates are never pending).
    ports::DistributionRepository* distributions = nullptr;
    // CA quotas (both, or none): every order, issued certificate, failed validation and
    // rate-limit refusal is recorded per registered domain, and a refusal's Retry-After holds
    // back every job ordering for that domain through the same ACME account until it passed.
    ports::CaActivityLog* caActivity = nullptr;
    const ports::PublicSuffixes* suffixes = nullptr;
    // The other job types, one handler each; a type with none fails saying so.
    std::vector<JobHandler*> handlers{};
  };
  IssuanceWorker(Ports ports, JobPolicy policy, Duration dnsTimeout);

  // Claims one due job of `lane` and runs it to success or a failed attempt. Returns whether a
  // job was run; an error only when the store itself failed.
  Result<bool> runOnce(Lane lane, const std::string& worker);

  // The shutdown deadline passed: every running attempt is asked to stop, and each job whose
  // attempt does not finish goes back to pending without the attempt counted (spec, Job table:
  // shutdown_release). runOnce claims nothing afterwards. Returns at once; the attempts end on
  // their threads.
  void releaseRunning();

 private:
  // The attempt: the certificate issued or renewed, or the reason it was not.
  Status attempt(const Job& job, const StopSignal& stop, AttemptNotes& notes);
  // The registered domains of `names`, each once, in order.
  std::vector<std::string> registeredDomains(const std::vector<std::string>& names) const;
  // The furthest-reaching rate limit the CA announced for one of `domains` through `account`
  // that still holds.
  std::optional<CaActivity> activeRateLimit(const Job& job, const AcmeAccount& account,
                                            const std::vector<std::string>& domains);
  // Records what the CA was asked and answered during one order through `account`.
  void recordCaActivity(const Job& job, const AcmeAccount& account,
                        const std::vector<std::string>& domains, const ports::IssueReport& report,
                        bool issued, AttemptNotes& notes);
  // Queues a cleanup_dns job (a child of `job`) for each record whose removal failed.
  void queueCleanups(const Job& job,
                     const std::vector<std::pair<ports::TxtRecord, std::string>>& failed);
  void log(const Job& job, LogLevel level, const std::string& message);
  // Counts a finished attempt by outcome and observes its duration.
  void measure(const Job& job, const char* outcome, Timestamp started);
  // Hands a raised event to the Notifier (a failure to record it is logged on the job).
  // Raises `kind` (if any) about `resource`; job.failed carries the job's certificate (or
  // distribution) as what would recover.
  void raise(const Job& job, std::optional<EventKind> kind, const Id& resource,
             const std::string& message, std::map<std::string, std::string> details = {},
             Id subject = {});
  void raiseJobFailed(const Job& job, std::optional<EventKind> kind, const std::string& error);
  // Applies a certificate event with compare-and-set retries.
  Status certificateEvent(const Job& job, CertificateEvent event, const CertificateContext& ctx,
                          Certificate* issued = nullptr);

  Ports p_;
  JobPolicy policy_;
  Duration dnsTimeout_;
  std::map<JobType, JobHandler*> handlers_;
  std::atomic<bool> releasing_{false};
  std::mutex runningMutex_;
  std::map<std::string, StopSignal*> running_;  // by worker id, while its attempt runs
};

}  // namespace certsteward::domain
