// CaQuotaService: the CA quotas of a zone's registered domain, as this service counts them —
// certificates issued, orders and failed validations inside each limit's window, and the last
// rateLimited answer with its Retry-After — for every ACME directory the project's accounts use,
// next to that directory's limits (configured in acme.rate_limits, else those its CA provider
// publishes, else the CA's published defaults known here). Read with the project viewer role.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/ca_quota.hpp>
#include <certsteward/ports/acme_account_repository.hpp>
#include <certsteward/ports/ca_activity_log.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/public_suffixes.hpp>
#include <certsteward/ports/settings_documents.hpp>
#include <certsteward/ports/zone_repository.hpp>
#include <certsteward/services/access_control.hpp>

namespace certsteward::services {

struct QuotaUsage {
  std::int64_t used = 0;
  domain::QuotaLimit limit;  // limit.max 0: the CA publishes none
};

struct RateLimitNotice {
  domain::Timestamp at{};
  std::optional<domain::Timestamp> retry_until;
  std::string detail;   // the CA's words; withheld when another project's order was refused
  bool active = false;  // retry_until has not passed: no order for the domain goes to the CA
};

struct DirectoryQuota {
  std::string directory_url;
  // "configured" (acme.rate_limits), "provider" (its CA provider's rate_limits), "published" (the
  // defaults known here) or "unknown"
  std::string limits_source;
  QuotaUsage certificates;
  QuotaUsage orders;
  QuotaUsage failed_validations;
  std::optional<RateLimitNotice> last_rate_limited;
};

struct ZoneQuotaReport {
  domain::Id zone_id;
  std::string domain;
  std::string registered_domain;
  domain::Timestamp at{};
  std::vector<DirectoryQuota> directories;  // one per directory URL of the project's accounts
};

class CaQuotaService {
 public:
  struct Ports {
    ports::ZoneRepository& zones;
    ports::AcmeAccountRepository& accounts;
    const ports::CaActivityLog& activity;
    const ports::PublicSuffixes& suffixes;
    const ports::Clock& clock;
    // The CA providers whose rate_limits count when acme.rate_limits names none (none: unused).
    const ports::CaProviderRepository* providers = nullptr;
  };

  CaQuotaService(Ports ports, const AccessControl& access,
                 std::vector<domain::CaQuotaLimits> configured)
      : p_(ports), access_(access), configured_(std::move(configured)) {}

  /** @return the report; not_found for an unknown zone or project, permission_denied without
   * the viewer role, unavailable when the store fails. */
  domain::Result<ZoneQuotaReport> forZone(const Principal& who, const domain::Id& projectId,
                                          const domain::Id& zoneId) const;

 private:
  Ports p_;
  const AccessControl& access_;
  std::vector<domain::CaQuotaLimits> configured_;
};

}  // namespace certsteward::services
