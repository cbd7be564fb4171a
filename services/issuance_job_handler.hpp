// IssuanceJobHandler: the issue_certificate and renew_certificate jobs. It orders the
// certificate from the Issuer through the certificate's issuer preference (its ACME accounts in
// order, else the project's first account), failing over to the next CA as CaFailoverPolicy
// says, proving control through the project's DNS zones or HTTP-01; stores it sealed and moves the
// certificate through its table (docs/architecture.md); queues a cleanup_dns job for each challenge
// record whose removal failed and a distribution job when the certificate has distributions. With a
// CaActivityRecorder, a rate limit the CA announced holds back orders for its domains.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/issuance_policy.hpp>
#include <certsteward/domain/job.hpp>
#include <certsteward/ports/acme_account_repository.hpp>
#include <certsteward/ports/background.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/challenge_tokens.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/distribution_repository.hpp>
#include <certsteward/ports/dns_credential_repository.hpp>
#include <certsteward/ports/dns_lookup.hpp>
#include <certsteward/ports/dns_provider_factory.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/issuer.hpp>
#include <certsteward/ports/job_queue.hpp>
#include <certsteward/ports/metrics.hpp>
#include <certsteward/ports/notifier.hpp>
#include <certsteward/ports/project_repository.hpp>
#include <certsteward/ports/secret_box.hpp>
#include <certsteward/ports/settings_documents.hpp>
#include <certsteward/ports/zone_repository.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/ca_activity_recorder.hpp>
#include <certsteward/services/caa_check.hpp>
#include <certsteward/services/distribution_runner.hpp>
#include <certsteward/services/job_handler.hpp>

namespace certsteward::services {

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
    // CNAME delegations, and CAA before each order (none: neither)
    ports::DnsLookup* lookup = nullptr;
    // HTTP-01: the answers this service serves itself (acme.http01_listen), and the runner whose
    // file and ssh modules write them into webroots (none: certificates asking for it fail).
    ports::ChallengeTokens* challengeTokens = nullptr;
    DistributionRunner* webroots = nullptr;
    domain::Duration challengeTokenTtl = std::chrono::hours{1};  // after which a token is dropped
    // The CA providers: a disabled one is passed over, and issued_by_provider_id is recorded
    // (none: neither).
    const ports::CaProviderRepository* providers = nullptr;
    AuditService* audit = nullptr;  // ca failovers audited (none: not)
    // The project's issuance defaults (the issuer preference of a certificate without one) and
    // policy (none: neither).
    const ports::ProjectRepository* projects = nullptr;
  };
  // `policy`: the jobs it queues; `failover`: when an order goes on to the next CA.
  IssuanceJobHandler(Ports ports, domain::JobPolicy policy, domain::CaFailoverPolicy failover = {})
      : p_(ports), policy_(policy), failover_(failover) {}

  std::vector<domain::JobType> types() const override {
    return {domain::JobType::issue_certificate, domain::JobType::renew_certificate};
  }
  // The certificate issued or renewed and stored, or the reason it was not. Deferred while a
  // CA's rate limit holds.
  domain::Status attempt(const domain::Job& job, const domain::StopSignal& stop, const Log& log,
                         AttemptNotes& notes) override;
  // The certificate records the failure (attempt_failed; attempts_exhausted once dead).
  void attemptFailed(const domain::Job& job, const std::string& error, const Log& log) override;
  // A job that went dead with its worker: attempts_exhausted.
  void abandoned(const domain::Job& job, const Log& log) override;
  // The certificate and its variables.
  JobFailureSubject failureSubject(const domain::Job& job) const override;

 private:
  // Applies a certificate event with compare-and-set retries, storing `issued`'s material and
  // then `also` (may be null).
  domain::Status certificateEvent(const domain::Job& job, domain::CertificateEvent event,
                                  const domain::CertificateContext& ctx, const Log& log,
                                  const domain::Certificate* issued = nullptr,
                                  const std::function<void(domain::Certificate&)>& also = nullptr);
  // Changes the stored certificate with compare-and-set retries.
  domain::Status changeCertificate(const domain::Job& job,
                                   const std::function<void(domain::Certificate&)>& change);
  // One order through `account`: registration when needed, then the order. Fills `report`.
  domain::Result<ports::IssuedCertificate> orderFrom(
      const domain::Job& job, const domain::Certificate& cert, domain::AcmeAccount& account,
      const std::optional<domain::CaProvider>& provider, const std::vector<std::string>& names,
      const domain::StopSignal& stop, const Log& log, ports::IssueReport& report);
  // The job log line, the ca.failover event and the audit entry of a move from one CA to the
  // next.
  void reportFailover(const domain::Job& job, const domain::Certificate& cert,
                      const domain::AcmeAccount& from, const domain::AcmeAccount& to,
                      const std::string& why, const Log& log);
  // Stores what `account` issued (sealed) and records who issued it; queues its delivery. What
  // was issued is judged by `policy` (the longest lifetime) and by SC-081.
  domain::Status stored(const domain::Job& job, const domain::Certificate& cert,
                        const domain::AcmeAccount& account,
                        const std::optional<domain::CaProvider>& provider,
                        const std::vector<domain::Id>& preference,
                        const domain::IssuancePolicy& policy, ports::IssuedCertificate issued,
                        const Log& log);
  // Why CAA forbids `provider` to issue `names` through `account` (RFC 8659), looked up through
  // `lookup`; nullopt when it allows it or cannot tell (no lookup, no CAA identities, resolvers
  // that do not answer: the CA checks CAA itself).
  std::optional<domain::Error> caaRefusal(const domain::Certificate& cert,
                                          const domain::AcmeAccount& account,
                                          const std::optional<domain::CaProvider>& provider,
                                          const std::vector<std::string>& names,
                                          CaaAnswers& answers, const Log& log);
  // A policy event (policy.violation, policy.lifetime_exceeds_schedule) about `cert`.
  void raisePolicyEvent(const domain::Job& job, const domain::Certificate& cert,
                        domain::EventKind kind, const std::string& message,
                        const std::string& rules, const Log& log);
  // The provider of `account` (null when unknown).
  std::optional<domain::CaProvider> providerOf(const domain::AcmeAccount& account) const;
  // Queues a cleanup_dns job (a child of `job`) for each record whose removal failed.
  void queueCleanups(const domain::Job& job,
                     const std::vector<std::pair<ports::TxtRecord, std::string>>& failed,
                     const Log& log);
  // Queues the delivery of the certificate just stored.
  void queueDistribution(const domain::Job& job, const domain::Id& certificateId, const Log& log);

  Ports p_;
  domain::JobPolicy policy_;
  domain::CaFailoverPolicy failover_;
};

}  // namespace certsteward::services
