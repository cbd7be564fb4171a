// In-memory project events.
#include <certsteward/adapters/store/memory/memory_event_log.hpp>

#include <algorithm>

#include <certsteward/adapters/store/memory/memory_transactions.hpp>
#include <certsteward/adapters/store/memory/paginate.hpp>

namespace certsteward::adapters::memory {

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
