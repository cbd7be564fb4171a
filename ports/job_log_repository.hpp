// JobLogRepository: the lines a job writes while it runs, for people to follow.
#pragma once

#include <certsteward/domain/job.hpp>
#include <certsteward/domain/pagination.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

class JobLogRepository {
 public:
  virtual ~JobLogRepository() = default;

  /** Appends a line. @return unavailable on store outage. Thread-safe. */
  virtual domain::Status append(const domain::JobLogEntry& entry) = 0;

  /** @return one page of a job's lines in the order written (empty for an unknown job). */
  virtual domain::Result<domain::Page<domain::JobLogEntry>> list(
      const domain::Id& jobId, const domain::PageRequest& page) const = 0;
};

}  // namespace certsteward::ports
