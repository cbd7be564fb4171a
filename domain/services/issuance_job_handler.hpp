// IssuanceJobHandler: the issue_certificate and renew_certificate jobs. It orders the
// certificate from the Issuer through the project's ACME account, proving control through the
// project's DNS zones; stores it sealed and moves the certificate through its table
// (docs/architecture.md); queues a cleanup_dns job for each challenge record whose removal
// failed and a distribution job when the certificate has distributions. With a
// CaActivityRecorder, a rate limit the CA announced holds back orders for its domains.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "domain/certificate.hpp"
#include "domain/job.hpp"
#include "domain/services/ca_activity_recorder.hpp"
#include "domain/services/job_handler.hpp"
#include "ports/acme_account_repository.hpp"
#include "ports/background.hpp"
#include "ports/certificate_repository.hpp"
#include "ports/clock.hpp"
#include "ports/distribution_repository.hpp"
#include "ports/dns_credential_repository.hpp"
#include "ports/dns_provider_factory.hpp"
#include "ports/id_generator.hpp"
#include "ports/issuer.hpp"
#include "ports/job_queue.hpp"
#include "ports/metrics.hpp"
#include "ports/notifier.hpp"
#include "ports/secret_box.hpp"
#include "ports/zone_repository.hpp"

namespace certsteward::domain {

class IssuanceJobHandler : public JobHandler {
 public:
  struct Ports {
    ports::CertificateRepository& certificates;
    ports::AcmeAccountRepository& accounts;
    ports::ZoneRepository& zones;
    ports::DnsCredentialRepository& dnsCredentials;
    ports::DnsProviderFactory& dnsProviders;
    ports::Issuer& issuer;
    const ports::SecretBox& secrets;
    const ports::Clock& clock;
    ports::Background& background;  // DNS propagation checks side by side
    ports::Notifier& notifier;      // cert.issued, cert.renewed, cert.renewal_failed
    ports::JobQueue& jobs;          // the clean-up and distribution jobs it queues
    ports::IdGenerator& ids;
    ports::Metrics* metrics = nullptr;  // issuance latency, from queued to stored (optional)
    // distribution_pending after issuance (none: certificates are never pending).
    ports::DistributionRepository* distributions = nullptr;
    CaActivityRecorder* caActivity = nullptr;  // CA quotas (none: not counted)
  };
  // `policy`: the jobs it queues.
  IssuanceJobHandler(Ports ports, JobPolicy policy) : p_(ports), policy_(policy) {}

  std::vector<JobType> types() const override {
    return {JobType::issue_certificate, JobType::renew_certificate};
  }
  // The certificate issued or renewed and stored, or the reason it was not. Deferred while a
  // CA's rate limit holds.
  Status attempt(const Job& job, const StopSignal& stop, const Log& log,
                 AttemptNotes& notes) override;
  // The certificate records the failure (attempt_failed; attempts_exhausted once dead).
  void attemptFailed(const Job& job, const std::string& error, const Log& log) override;
  // A job that went dead with its worker: attempts_exhausted.
  void abandoned(const Job& job, const Log& log) override;
  // The certificate and its variables.
  JobFailureSubject failureSubject(const Job& job) const override;

 private:
  // Applies a certificate event with compare-and-set retries, storing `issued`'s material.
  Status certificateEvent(const Job& job, CertificateEvent event, const CertificateContext& ctx,
                          const Log& log, const Certificate* issued = nullptr);
  // Queues a cleanup_dns job (a child of `job`) for each record whose removal failed.
  void queueCleanups(const Job& job,
                     const std::vector<std::pair<ports::TxtRecord, std::string>>& failed,
                     const Log& log);
  // Queues the delivery of the certificate just stored.
  void queueDistribution(const Job& job, const Id& certificateId, const Log& log);

  Ports p_;
  JobPolicy policy_;
};

}  // namespace certsteward::domain
