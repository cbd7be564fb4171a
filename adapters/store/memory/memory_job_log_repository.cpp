// In-memory job logs.
#include <certsteward/adapters/store/memory/memory_job_log_repository.hpp>

#include <certsteward/adapters/store/memory/memory_transactions.hpp>
#include <certsteward/adapters/store/memory/paginate.hpp>

namespace certsteward::adapters::memory {

domain::Status MemoryJobLogRepository::append(const domain::JobLogEntry& entry) {
  std::lock_guard lock(mu_);
  entries_[entry.job_id].push_back(entry);
  undoInTransaction([this, jobId = entry.job_id] {
    std::lock_guard relock(mu_);
    if (auto& v = entries_[jobId]; !v.empty()) v.pop_back();
  });
  return {};
}

domain::Result<domain::Page<domain::JobLogEntry>> MemoryJobLogRepository::list(
    const domain::Id& jobId, const domain::PageRequest& page) const {
  std::vector<domain::JobLogEntry> copy;
  {
    std::lock_guard lock(mu_);
    const auto it = entries_.find(jobId);
    if (it != entries_.end()) copy = it->second;
  }
  return paginate(std::move(copy), page);
}

}  // namespace certsteward::adapters::memory
