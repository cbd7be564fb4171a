// MemoryProjectScopedRepository<Port, T>: the in-memory implementation of every
// ProjectScopedRepository port. Entities are kept in id order (= creation order). Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <vector>

#include <certsteward/adapters/store/memory/memory_transactions.hpp>
#include <certsteward/adapters/store/memory/paginate.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>

namespace certsteward::adapters::memory {

template <class Port, class T>
class MemoryProjectScopedRepository : public Port {
 public:
  domain::Status create(const T& entity) override {
    std::lock_guard lock(mu_);
    if (!items_.emplace(entity.id, entity).second) {
      return domain::makeError(domain::ErrorCode::conflict, "an entity with this id exists");
    }
    undoInTransaction([this, id = entity.id] {
      std::lock_guard relock(mu_);
      items_.erase(id);
    });
    return {};
  }

  domain::Result<T> get(const domain::Id& projectId, const domain::Id& id) const override {
    std::lock_guard lock(mu_);
    const auto it = items_.find(id);
    if (it == items_.end() || it->second.project_id != projectId) return notFound();
    return it->second;
  }

  domain::Result<domain::Page<T>> list(const domain::Id& projectId,
                                       const domain::PageRequest& page) const override {
    return paginate(select([&](const T& e) { return e.project_id == projectId; }), page);
  }

  domain::Status update(const T& entity) override {
    std::lock_guard lock(mu_);
    const auto it = items_.find(entity.id);
    if (it == items_.end() || it->second.project_id != entity.project_id) return notFound();
    undoInTransaction([this, old = it->second] { restore(old); });
    it->second = entity;
    return {};
  }

  domain::Status remove(const domain::Id& projectId, const domain::Id& id) override {
    std::lock_guard lock(mu_);
    const auto it = items_.find(id);
    if (it == items_.end() || it->second.project_id != projectId) return notFound();
    undoInTransaction([this, old = it->second] { restore(old); });
    items_.erase(it);
    return {};
  }

 protected:
  // A copy of the entities matching `pred`, in id order.
  template <class Pred>
  std::vector<T> select(Pred pred) const {
    std::lock_guard lock(mu_);
    std::vector<T> out;
    for (const auto& [id, e] : items_) {
      if (pred(e)) out.push_back(e);
    }
    return out;
  }

  static domain::Error notFound() {
    return domain::makeError(domain::ErrorCode::not_found, "not found");
  }

 private:
  void restore(const T& old) {
    std::lock_guard lock(mu_);
    items_[old.id] = old;
  }

  mutable std::mutex mu_;
  std::map<domain::Id, T> items_;
};

}  // namespace certsteward::adapters::memory
