// In-memory projects.
#include <certsteward/adapters/store/memory/memory_project_repository.hpp>

#include <algorithm>

#include <certsteward/adapters/store/memory/memory_transactions.hpp>
#include <certsteward/adapters/store/memory/paginate.hpp>

namespace certsteward::adapters::memory {
namespace {

domain::Error notFound() {
  return domain::makeError(domain::ErrorCode::not_found, "project not found");
}
domain::Error nameConflict() {
  return domain::makeError(domain::ErrorCode::conflict, "a project with this name exists");
}

}  // namespace

bool MemoryProjectRepository::nameTaken(const std::string& name, const domain::Id& except) const {
  return std::any_of(items_.begin(), items_.end(),
                     [&](const auto& kv) { return kv.first != except && kv.second.name == name; });
}

domain::Status MemoryProjectRepository::create(const domain::Project& project) {
  std::lock_guard lock(mu_);
  if (nameTaken(project.name, project.id)) return nameConflict();
  if (!items_.emplace(project.id, project).second) {
    return domain::makeError(domain::ErrorCode::conflict, "a project with this id exists");
  }
  undoInTransaction([this, id = project.id] {
    std::lock_guard relock(mu_);
    items_.erase(id);
  });
  return {};
}

domain::Result<domain::Project> MemoryProjectRepository::get(const domain::Id& id) const {
  std::lock_guard lock(mu_);
  const auto it = items_.find(id);
  if (it == items_.end()) return notFound();
  return it->second;
}

domain::Result<domain::Page<domain::Project>> MemoryProjectRepository::list(
    const domain::PageRequest& page, const std::optional<std::vector<domain::Id>>& only) const {
  std::vector<domain::Project> selected;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, p] : items_) {
      if (only && std::find(only->begin(), only->end(), id) == only->end()) continue;
      selected.push_back(p);
    }
  }
  return paginate(std::move(selected), page);
}

domain::Status MemoryProjectRepository::update(const domain::Project& project) {
  std::lock_guard lock(mu_);
  const auto it = items_.find(project.id);
  if (it == items_.end()) return notFound();
  if (nameTaken(project.name, project.id)) return nameConflict();
  undoInTransaction([this, old = it->second] { restore(old); });
  it->second = project;
  return {};
}

domain::Status MemoryProjectRepository::remove(const domain::Id& id) {
  std::lock_guard lock(mu_);
  const auto it = items_.find(id);
  if (it == items_.end()) return notFound();
  undoInTransaction([this, old = it->second] { restore(old); });
  items_.erase(it);
  return {};
}

void MemoryProjectRepository::restore(const domain::Project& old) {
  std::lock_guard lock(mu_);
  items_[old.id] = old;
}

}  // namespace certsteward::adapters::memory
