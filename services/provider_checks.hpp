// ProviderChecks: the "does this configuration work?" actions — validating an ACME account at
// its CA, and testing a DNS credential by adding, seeing and removing a TXT record in a zone that
// uses it. Project admins only; audited.
#pragma once

#include <string>
#include <vector>

#include <certsteward/domain/acme_account.hpp>
#include <certsteward/ports/acme_account_repository.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/dns_credential_repository.hpp>
#include <certsteward/ports/dns_provider_factory.hpp>
#include <certsteward/ports/issuer.hpp>
#include <certsteward/ports/secret_box.hpp>
#include <certsteward/ports/zone_repository.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

struct CheckStep {
  std::string name;  // "add", "visible", "remove"
  bool ok = false;
  std::string message;
};

struct DnsCheck {
  bool ok = false;
  std::string zone;
  std::string record;
  std::vector<CheckStep> steps;
};

class ProviderChecks {
 public:
  struct Ports {
    ports::AcmeAccountRepository& accounts;
    ports::DnsCredentialRepository& dnsCredentials;
    ports::ZoneRepository& zones;
    ports::DnsProviderFactory& dnsProviders;
    ports::Issuer& issuer;
    const ports::SecretBox& secrets;
    const ports::Clock& clock;
  };
  ProviderChecks(Ports ports, UnitOfWork& work, const AccessControl& access, AuditService& audit,
                 domain::Duration dnsTimeout)
      : p_(ports), work_(work), access_(access), audit_(audit), dnsTimeout_(dnsTimeout) {}

  // Registers or finds the account at its CA and records status, is_registered and
  // last_validated_at. unavailable when the CA cannot be reached; failed_precondition with the
  // CA's words when it refuses.
  domain::Result<domain::AcmeAccount> validateAccount(const Principal& who,
                                                      const RequestContext& ctx,
                                                      const domain::Id& projectId,
                                                      const domain::Id& id);

  // Replaces a registered account's key at its CA (RFC 8555 key change) and stores the new key,
  // sealed. failed_precondition when the account is not registered or the CA refuses.
  domain::Result<domain::AcmeAccount> rolloverAccountKey(const Principal& who,
                                                         const RequestContext& ctx,
                                                         const domain::Id& projectId,
                                                         const domain::Id& id);

  // Adds, awaits and removes a TXT record in the first zone that uses the credential. The
  // outcome of each step is in the result; failed_precondition when no zone uses it.
  domain::Result<DnsCheck> testDnsCredential(const Principal& who, const RequestContext& ctx,
                                             const domain::Id& projectId, const domain::Id& id);

 private:
  // The account, when the caller may change the project's configuration (404, then 403).
  domain::Result<domain::AcmeAccount> accountToManage(const Principal& who,
                                                      const domain::Id& projectId,
                                                      const domain::Id& id);

  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
  domain::Duration dnsTimeout_;
};

}  // namespace certsteward::services
