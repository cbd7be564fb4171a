// CaActivityLog: what this service asked of each ACME CA and what the CA answered, per registered
// domain — orders created, certificates issued, failed validations, rate-limit refusals — shared
// by all instances, so the quotas the CA counts can be reported (GET zones/<id>/rate-limits) and
// a rateLimited answer holds back every worker's orders through that ACME account for that
// domain until the CA's Retry-After.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <certsteward/domain/ca_quota.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

class CaActivityLog {
 public:
  virtual ~CaActivityLog() = default;

  /**
   * Stores `activity` (its id set by the caller); records older than kCaActivityRetention before
   * `activity.at` may be dropped. Thread-safe; not part of a transaction (the CA saw it happen
   * whatever becomes of the job).
   */
  virtual domain::Status record(const domain::CaActivity& activity) = 0;

  /** @return how many records of `kind` for (`directoryUrl`, `registeredDomain`) are at or after
   * `since`. Thread-safe. */
  virtual domain::Result<std::int64_t> count(const std::string& directoryUrl,
                                             const std::string& registeredDomain,
                                             domain::CaActivityKind kind,
                                             domain::Timestamp since) const = 0;

  /** @return the newest record of `kind` for (`directoryUrl`, `registeredDomain`), if any.
   * Thread-safe. */
  virtual domain::Result<std::optional<domain::CaActivity>> latest(
      const std::string& directoryUrl, const std::string& registeredDomain,
      domain::CaActivityKind kind) const = 0;

  /**
   * @return among the rate_limited records for (`directoryUrl`, `registeredDomain`) made through
   * `accountId`, the one whose retry_until lies furthest after `now`; none when no refusal
   * still holds. Thread-safe.
   */
  virtual domain::Result<std::optional<domain::CaActivity>> activeHold(
      const std::string& directoryUrl, const std::string& registeredDomain,
      const domain::Id& accountId, domain::Timestamp now) const = 0;
};

}  // namespace certsteward::ports
