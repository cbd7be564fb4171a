// CaProviderService: the organisation's CA providers (GET/POST/PATCH/DELETE /ca-providers).
// Every member reads them; org admins and owners change them. Adding or re-pointing one reads
// its ACME directory (profiles, CAA identities, whether EAB is required); a directory that
// cannot be read is noted on the provider, not refused, so a CA down at 3 a.m. can still be
// configured. A provider that ACME accounts use cannot be deleted or moved to another
// directory. Project ACME accounts refer to a provider: bindAccount() fills in the link, making
// a custom provider for a directory URL no provider has yet (the accounts that predate
// providers get theirs the same way, through adoptAccounts()).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/acme_account.hpp>
#include <certsteward/domain/ca_provider.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/ports/acme_account_repository.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/dns_provider_factory.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/issuer.hpp>
#include <certsteward/ports/project_repository.hpp>
#include <certsteward/ports/settings_documents.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

// The guard every change of the providers' document takes.
inline constexpr const char* kCaProvidersGuard = "ca-providers";

struct CaProviderView {
  domain::CaProvider provider;
  ports::IssuerInfo issuer;  // what this instance's issuer does with it
  std::vector<ports::DnsProviderKind> dns_providers;
  bool available = false;  // enabled, and some challenge can be answered here
};

// What adoptAccounts() did.
struct AccountAdoption {
  int adopted = 0;
  std::vector<std::string> skipped;  // "project <p> acme_account <a>: why"
};

// A PATCH of one rate limit, and of the three: what is given.
struct QuotaLimitChange {
  std::optional<std::int64_t> max;
  std::optional<domain::Duration> window;
};
struct CaRateLimitsChange {
  std::optional<QuotaLimitChange> certificates, orders, failed_validations;
};

// `change` applied onto `limits`.
void applyLimits(domain::CaRateLimits& limits, const CaRateLimitsChange& change);

// A PATCH: the fields given.
struct CaProviderChange {
  std::optional<std::string> name;
  std::optional<std::string> directory_url;
  std::optional<std::string> trust_bundle;
  std::optional<bool> eab_required;
  std::optional<std::vector<std::string>> caa_identities;
  std::optional<CaRateLimitsChange> rate_limits;
  std::optional<bool> enabled;
};

class CaProviderService {
 public:
  struct Ports {
    ports::CaProviderRepository& providers;
    ports::Issuer& issuer;
    const ports::DnsProviderFactory& dnsProviders;
    const ports::ProjectRepository& projects;
    ports::AcmeAccountRepository& accounts;
    ports::IdGenerator& ids;
    const ports::Clock& clock;
  };
  CaProviderService(Ports ports, UnitOfWork& work, const AccessControl& access, AuditService& audit)
      : p_(ports), work_(work), access_(access), audit_(audit) {}

  /** Every provider, oldest first. Any member. */
  domain::Result<std::vector<CaProviderView>> list(const Principal& who) const;
  /** One provider; not_found. Any member. */
  domain::Result<CaProviderView> get(const Principal& who, const domain::Id& id) const;
  /** The presets one can add. Any member. */
  domain::Result<std::vector<domain::CaPreset>> presets(const Principal& who) const;

  /**
   * Adds `draft` (its id and times ignored). Its directory is read first.
   * @return the provider; invalid_argument naming the field, conflict for a name or directory
   * URL already taken, permission_denied unless org admin.
   */
  domain::Result<CaProviderView> create(const Principal& who, const RequestContext& ctx,
                                        domain::CaProvider draft);
  /** Applies `change`; moving the directory is refused (conflict) while accounts use it. */
  domain::Result<CaProviderView> update(const Principal& who, const RequestContext& ctx,
                                        const domain::Id& id, const CaProviderChange& change);
  /** Deletes it; conflict (DEPENDENCY_CONFLICT, the accounts named) while accounts use it. */
  domain::Status remove(const Principal& who, const RequestContext& ctx, const domain::Id& id);
  /** Reads its directory again (profiles and the rest). Org admin. */
  domain::Result<CaProviderView> refresh(const Principal& who, const RequestContext& ctx,
                                         const domain::Id& id);

  /**
   * Inside the caller's transaction (which must take kCaProvidersGuard): links `account` to its
   * provider. A ca_provider_id given must name an enabled provider (its directory URL is copied);
   * otherwise the provider with the account's directory_url, made (custom, audited) when there
   * is none. An account moved to another provider loses its registration.
   * @return invalid_argument naming ca_provider_id or directory_url.
   */
  domain::Status bindAccount(domain::AcmeAccount& account, const domain::AcmeAccount* before,
                             const Principal* who, const RequestContext& ctx);

  /**
   * Links every account that has no provider yet to the provider with its directory URL (made
   * when there is none). Run at start; idempotent. An account that cannot be linked (its URL
   * breaks a provider's rules, no room for another provider) is skipped and named; only a store
   * that does not answer fails it.
   */
  domain::Result<AccountAdoption> adoptAccounts();

  /** The trust bundle of the provider at `directoryUrl` ("" when none or on a store error). */
  std::string trustBundleFor(const std::string& directoryUrl) const;

 private:
  domain::Result<domain::CaProviderList> load() const;
  domain::Result<domain::CaProvider> find(const domain::Id& id) const;  // not_found
  // In one transaction under the guard: the stored provider `id` (not_found) given to `change`
  // with the whole list, then stored and audited as `action`. @return it as stored.
  domain::Result<domain::CaProvider> changeStored(
      const Principal& who, const RequestContext& ctx, const domain::Id& id, const char* action,
      const std::function<domain::Status(const domain::CaProviderList&, domain::CaProvider*)>&
          change);
  CaProviderView viewOf(domain::CaProvider provider) const;
  // Reads the directory into `provider` (its error noted when it cannot be read).
  void readDirectory(domain::CaProvider& provider) const;
  // "project <p> account <a>" for every account using provider `id`.
  domain::Result<std::vector<std::string>> accountsUsing(const domain::Id& id) const;
  domain::Status manage(const Principal& who) const;

  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::services
