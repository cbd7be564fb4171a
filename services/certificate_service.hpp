// CertificateService: the certificate use cases of the API — create (licence cap, then an
// issue_certificate job), list, get, delete, manual renew — under the role matrix, audited.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/issuance_policy.hpp>
#include <certsteward/ports/acme_account_repository.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/distribution_repository.hpp>
#include <certsteward/ports/dns_lookup.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/job_queue.hpp>
#include <certsteward/ports/key_bundles.hpp>
#include <certsteward/ports/license_repository.hpp>
#include <certsteward/ports/module_config_repository.hpp>
#include <certsteward/ports/project_repository.hpp>
#include <certsteward/ports/secret_box.hpp>
#include <certsteward/ports/settings_documents.hpp>
#include <certsteward/ports/zone_repository.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/challenge_routes.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

struct CertificateRequest {
  std::string common_name;
  std::vector<std::string> sans;  // common_name is added when missing
  domain::KeyType key_type = domain::KeyType::ecdsa_p256;
  // At most one of the two; neither: renew_at_fraction 1/3 (renewal_threshold_days stays 30).
  std::optional<int> renewal_threshold_days;
  std::optional<double> renew_at_fraction;
  bool auto_renew = true;
  std::optional<domain::Id> acme_account_id;
  // The issuer preference (first choice first); acme_account_id, when also given, must be its
  // first.
  std::vector<domain::Id> acme_account_ids;
  std::string profile;  // offered by the first choice's CA provider
  std::string preferred_chain;
  domain::ChallengeType challenge = domain::ChallengeType::dns_01;
  domain::Id http01_module_config_id;  // http-01 through that webroot; empty: served here
};

// How a download carries the private key: not at all, or encrypted under a password the caller
// chose (a PKCS#8 PEM, or a PKCS#12 file with the leaf and the chain).
enum class KeyExport { none, encrypted_pem, pkcs12 };

struct MaterialRequest {
  KeyExport key = KeyExport::none;
  std::string password;  // with a key: 8 to 1024 characters, no control characters
};

// What a download carries: always the public material; the private key only encrypted, only
// when it was asked for, and only to a project admin. The key in clear never leaves the service.
struct CertificateMaterial {
  std::string common_name;
  std::string certificate_pem;            // leaf
  std::string chain_pem;                  // intermediates, may be empty
  std::string encrypted_private_key_pem;  // KeyExport::encrypted_pem
  std::string pkcs12;                     // KeyExport::pkcs12 (DER)
};

// The password rule of a key export. invalid_argument naming what is wrong.
domain::Status checkExportPassword(const std::string& password);

// What a dashboard shows of a project's certificates, counted by the store (never by reading
// them all).
struct CertificateSummary {
  static constexpr int kWeeks = 13;  // the expiry outlook: the next 91 days, week by week
  std::int64_t total = 0;
  std::map<domain::CertificateStatus, std::int64_t> by_status;  // every status, 0 included
  std::int64_t expired = 0;                                   // issued and already past expires_at
  std::vector<std::pair<int, std::int64_t>> expiring_within;  // (7|14|30 days, how many),
                                                              // expired ones included
  std::vector<std::int64_t> expiring_by_week;  // kWeeks counts: expiring in [now+7i, now+7i+7)
};

// Where the challenge of one of a certificate's names will be answered now: its route, or why
// none can serve it.
struct ChallengePlanEntry {
  std::string name;
  domain::ChallengeType challenge = domain::ChallengeType::dns_01;
  std::optional<ChallengeRoute> route;  // dns-01
  std::string
      http01_via;       // http-01: who answers ("this server ...", "module configuration <name>")
  std::string problem;  // set when route is not
};

// PATCH of a certificate: what may change after creation (the names, key and challenge may not:
// that is a new certificate).
struct CertificateChanges {
  std::optional<bool> auto_renew;
  std::optional<int> renewal_threshold_days;  // sets renew_at_fraction to 0
  std::optional<double> renew_at_fraction;    // 0 goes back to renewal_threshold_days
  // []: the project's default preference, else its first account
  std::optional<std::vector<domain::Id>> acme_account_ids;
  std::optional<std::string> profile;
  std::optional<std::string> preferred_chain;
};

struct QueuedCertificate {
  domain::Certificate certificate;
  domain::Job job;
};

class CertificateService {
 public:
  struct Ports {
    ports::CertificateRepository& certificates;
    ports::JobQueue& jobs;
    ports::DistributionRepository& distributions;
    ports::LicenseRepository& license;
    ports::IdGenerator& ids;
    const ports::Clock& clock;
    const ports::SecretBox& secrets;
    const ports::AcmeAccountRepository& acmeAccounts;
    // Which names a challenge method can serve: a zone of the project covering the name's
    // `_acme-challenge`, or the name a CNAME delegates it to (found through `lookup`).
    const ports::ZoneRepository& zones;
    const ports::KeyBundles* bundles = nullptr;  // encrypts exported keys (none: no key export)
    ports::DnsLookup* lookup = nullptr;          // none: delegations are not followed
    // HTTP-01 through a webroot: the module configurations it names (none: refused).
    const ports::ModuleConfigRepository* moduleConfigs = nullptr;
    bool http01Served = false;  // this server answers HTTP-01 itself (acme.http01_listen)
    // A profile is checked against the first choice's provider (none: not checked).
    const ports::CaProviderRepository* providers = nullptr;
    // The project's issuance defaults and policy (none: no defaults, no policy).
    const ports::ProjectRepository* projects = nullptr;
  };
  // `jobs`: the attempts and backoff of the jobs it queues.
  CertificateService(Ports ports, UnitOfWork& work, const AccessControl& access,
                     AuditService& audit, domain::JobPolicy jobs = {})
      : p_(ports), work_(work), access_(access), audit_(audit), jobPolicy_(jobs) {}

  // invalid_argument for bad names or numbers, an acme_account_id that is not an ACME account
  // of this project, or a name no configured challenge method can serve (no zone of the project
  // covers it, and no CNAME delegates its challenge to one that does, or the resolvers cannot
  // tell: the error names it);
  // resource_exhausted/LICENSE_LIMIT at the cap (checked first).
  // The certificate, its issue job and its audit entry are written in one transaction, with the
  // licence count checked inside it (no two creates can both take the last free place).
  domain::Result<QueuedCertificate> create(const Principal& who, const RequestContext& ctx,
                                           const domain::Id& projectId, CertificateRequest request);
  domain::Result<domain::Page<domain::Certificate>> list(const Principal& who,
                                                         const domain::Id& projectId,
                                                         const ports::CertificateFilter& filter,
                                                         const domain::PageRequest& page);
  // The project's certificate generation (CertificateRepository::generation), for callers that
  // keep derived views such as rendered list pages.
  domain::Result<std::int64_t> generation(const Principal& who, const domain::Id& projectId);
  // Counts by status, expired, expiring within 7/14/30 days and the expiry outlook by week.
  domain::Result<CertificateSummary> summary(const Principal& who, const domain::Id& projectId);
  // Each name's challenge route as the DNS says now (CNAMEs looked up through `lookup`), in the
  // certificate's order. not_found for an unknown certificate.
  domain::Result<std::vector<ChallengePlanEntry>> challengePlan(const Principal& who,
                                                                const domain::Id& projectId,
                                                                const domain::Id& id);
  domain::Result<domain::Certificate> get(const Principal& who, const domain::Id& projectId,
                                          const domain::Id& id);
  // conflict/DEPENDENCY_CONFLICT while distributions refer to it. In the same transaction its
  // pending and failed issuance and renewal jobs are cancelled and a running one is asked to
  // stop at its next step, each audited (job.cancel).
  domain::Status remove(const Principal& who, const RequestContext& ctx,
                        const domain::Id& projectId, const domain::Id& id);
  // The issued material for a download. invalid_argument for a key export's password that breaks
  // the rule (checked first); failed_precondition (409) while nothing has been issued yet. With
  // a key the caller must be a project admin, and the export is audited
  // (`certificate.private_key_export`); failed_precondition when this build has no KeyBundles.
  domain::Result<CertificateMaterial> material(const Principal& who, const RequestContext& ctx,
                                               const domain::Id& projectId, const domain::Id& id,
                                               const MaterialRequest& request = {});
  // Changes what `changes` names (operators): validated as at creation, the project's policy
  // kept (422 policy_violation); a new renewal threshold moves next_renewal_at of an issued
  // certificate. Audited certificate.update.
  domain::Result<domain::Certificate> update(const Principal& who, const RequestContext& ctx,
                                             const domain::Id& projectId, const domain::Id& id,
                                             const CertificateChanges& changes);
  // failed_precondition (409) while issuing or a renewal is queued or running.
  domain::Result<QueuedCertificate> renew(const Principal& who, const RequestContext& ctx,
                                          const domain::Id& projectId, const domain::Id& id);

 private:
  // The accounts of `cert` are the project's, and its profile is offered by the first choice's
  // provider (a profile `fromDefaults` that it does not offer is dropped instead).
  // `accountsFromDefaults`: a missing one is the issuance settings' fault, said so.
  domain::Status checkAccounts(domain::Certificate& cert, bool profileFromDefaults,
                               bool accountsFromDefaults) const;
  // The project's policy in `issuance` allows `cert` (422 policy_violation otherwise).
  domain::Status checkPolicy(const domain::Certificate& cert,
                             const domain::ProjectIssuance& issuance) const;
  // The HTTP-01 setup a new certificate names can serve it (422 naming the field otherwise).
  domain::Status checkHttp01(const domain::Id& projectId, const domain::Id& moduleConfigId) const;
  domain::Status cancelJobsOf(const Principal& who, const RequestContext& ctx,
                              const domain::Id& projectId, const domain::Id& certificateId);

  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
  domain::JobPolicy jobPolicy_;
};

}  // namespace certsteward::services
