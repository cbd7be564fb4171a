// MemoryJobLogRepository: job log lines per job, in write order. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <vector>

#include <certsteward/ports/job_log_repository.hpp>

namespace certsteward::adapters::memory {

class MemoryJobLogRepository : public ports::JobLogRepository {
 public:
  domain::Status append(const domain::JobLogEntry& entry) override;
  domain::Result<domain::Page<domain::JobLogEntry>> list(
      const domain::Id& jobId, const domain::PageRequest& page) const override;

 private:
  mutable std::mutex mu_;
  std::map<domain::Id, std::vector<domain::JobLogEntry>> entries_;
};

}  // namespace certsteward::adapters::memory
