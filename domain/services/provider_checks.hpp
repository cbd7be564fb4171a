// ProviderChecks: the "does this configuration work?" actions — validating an ACME account at
// its CA, and testing a DNS credential by adding, seeing and removing a TXT record in a zone that
// uses it. Project admins only; audited.
#pragma once

#include <string>
#include <vector>

#include "domain/acme_account.hpp"
#include "domain/services/access_control.hpp"
#include "domain/services/audit_service.hpp"
#include "domain/services/unit_of_work.hpp"
#include "ports/acme_account_repository.hpp"
#include "ports/clock.hpp"
#include "ports/dns_credential_repository.hpp"
#include "ports/dns_provider_factory.hpp"
#include "ports/issuer.hpp"
#include "ports/secret_box.hpp"
#include "ports/zone_repository.hpp"

namespace certsteward::domain {

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
                 Duration dnsTimeout)
      : p_(ports), work_(work), access_(access), audit_(audit), dnsTimeout_(dnsTimeout) {}

  // Registers or finds the account at its CA and records status, is_registered and
  // last_validated_at. unavailable when the CA cannot be reached; failed_precondition with the
  // CA's words when it refuses.
  Result<AcmeAccount> validateAccount(const Principal& who, const RequestContext& ctx,
                                      const Id& projectId, const Id& id);

  // Replaces a registered account's key at its CA (RFC 8555 key change) and stores the new key,
  // sealed. failed_precondition when the account is not registered or the CA refuses.
  Result<AcmeAccount> rolloverAccountKey(const Principal& who, const RequestContext& ctx,
                                         const Id& projectId, const Id& id);

  // Adds, awaits and removes a TXT record in the first zone that uses the credential. The
  // outcome of each step is in the result; failed_precondition when no zone uses it.
  Result<DnsCheck> testDnsCredential(const Principal& who, const RequestContext& ctx,
                                     const Id& projectId, const Id& id);

 private:
  // The account, when the caller may change the project's configuration (404, then 403).
  Result<AcmeAccount> accountToManage(const Principal& who, const Id& projectId, const Id& id);

  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
  Duration dnsTimeout_;
};

}  // namespace certsteward::domain
