// EventLog: the events raised by jobs, certificates and distributions (job.failed,
// cert.renewal_failed, cert.expiring_soon, distribution.failed), kept per project for people and
// for notification delivery. Every method is thread-safe.
#pragma once

#include <certsteward/domain/events.hpp>
#include <certsteward/domain/pagination.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

class EventLog {
 public:
  virtual ~EventLog() = default;

  /** Keeps `event` (its id set by the caller). @return unavailable on store outage. */
  virtual domain::Status record(const domain::Event& event) = 0;

  /** @return one page of the project's events, newest first (by `at`, then id). */
  virtual domain::Result<domain::Page<domain::Event>> list(
      const domain::Id& projectId, const domain::PageRequest& page) const = 0;

  /**
   * @return one page of the project's events oldest first, in the order they were recorded, so
   * that an offset into it stays valid while events are added (cursor reads).
   */
  virtual domain::Result<domain::Page<domain::Event>> listInOrder(
      const domain::Id& projectId, const domain::PageRequest& page) const = 0;
};

}  // namespace certsteward::ports
