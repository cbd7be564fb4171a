// In-memory memberships.
#include <certsteward/adapters/store/memory/memory_membership_repository.hpp>

#include <algorithm>

#include <certsteward/adapters/store/memory/memory_transactions.hpp>
#include <certsteward/adapters/store/memory/paginate.hpp>

namespace certsteward::adapters::memory {
namespace {

domain::Error notFound() {
  return domain::makeError(domain::ErrorCode::not_found, "membership not found");
}

}  // namespace

domain::Status MemoryMembershipRepository::put(const domain::Membership& m) {
  std::lock_guard lock(mu_);
  auto [it, inserted] = items_.try_emplace({m.project_id, m.user_id}, m);
  if (inserted) {
    undoInTransaction([this, key = it->first] {
      std::lock_guard relock(mu_);
      items_.erase(key);
    });
  } else {
    undoInTransaction([this, old = it->second] { restore(old); });
    it->second.role = m.role;  // keep the original created_at
  }
  return {};
}

domain::Result<domain::Membership> MemoryMembershipRepository::get(const domain::Id& projectId,
                                                                   const domain::Id& userId) const {
  std::lock_guard lock(mu_);
  const auto it = items_.find({projectId, userId});
  if (it == items_.end()) return notFound();
  return it->second;
}

domain::Status MemoryMembershipRepository::remove(const domain::Id& projectId,
                                                  const domain::Id& userId) {
  std::lock_guard lock(mu_);
  const auto it = items_.find({projectId, userId});
  if (it == items_.end()) return notFound();
  undoInTransaction([this, old = it->second] { restore(old); });
  items_.erase(it);
  return {};
}

void MemoryMembershipRepository::restore(const domain::Membership& old) {
  std::lock_guard lock(mu_);
  items_[{old.project_id, old.user_id}] = old;
}

domain::Result<domain::Page<domain::Membership>> MemoryMembershipRepository::listForProject(
    const domain::Id& projectId, const domain::PageRequest& page) const {
  std::vector<domain::Membership> selected;
  {
    std::lock_guard lock(mu_);
    for (const auto& [key, m] : items_) {
      if (key.first == projectId) selected.push_back(m);
    }
  }
  std::stable_sort(selected.begin(), selected.end(),
                   [](const auto& a, const auto& b) { return a.created_at < b.created_at; });
  return paginate(std::move(selected), page);
}

domain::Result<std::vector<domain::Membership>> MemoryMembershipRepository::listForUser(
    const domain::Id& userId) const {
  std::lock_guard lock(mu_);
  std::vector<domain::Membership> selected;
  for (const auto& [key, m] : items_) {
    if (key.second == userId) selected.push_back(m);
  }
  return selected;
}

}  // namespace certsteward::adapters::memory
