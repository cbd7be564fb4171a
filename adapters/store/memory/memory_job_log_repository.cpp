// In-memory job logs.
#include "adapters/store/memory/memory_job_log_repository.hpp"

#include <algorithm>

#include "adapters/store/memory/memory_transactions.hpp"
#include "adapters/store/memory/paginate.hpp"

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

domain::Status MemoryEventLog::record(const domain::Event& event) {
  std::lock_guard lock(mu_);
  events_[event.project_id].push_back(event);
  undoInTransaction([this, projectId = event.project_id, id = event.id] {
    std::lock_guard relock(mu_);
    auto& v = events_[projectId];
    v.erase(std::remove_if(v.begin(), v.end(), [&](const auto& e) { return e.id == id; }), v.end());
  });
  return {};
}

domain::Result<domain::Page<domain::Event>> MemoryEventLog::list(
    const domain::Id& projectId, const domain::PageRequest& page) const {
  std::vector<domain::Event> copy;
  {
    std::lock_guard lock(mu_);
    const auto it = events_.find(projectId);
    if (it != events_.end()) copy = it->second;
  }
  std::sort(copy.begin(), copy.end(), [](const domain::Event& a, const domain::Event& b) {
    return a.at != b.at ? a.at > b.at : a.id > b.id;
  });
  return paginate(std::move(copy), page);
}

domain::Result<domain::Page<domain::Event>> MemoryEventLog::listInOrder(
    const domain::Id& projectId, const domain::PageRequest& page) const {
  std::vector<domain::Event> copy;
  {
    std::lock_guard lock(mu_);
    const auto it = events_.find(projectId);
    if (it != events_.end()) copy = it->second;  // kept in the order recorded
  }
  return paginate(std::move(copy), page);
}

}  // namespace certsteward::adapters::memory
