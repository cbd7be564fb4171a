// In-memory users.
#include <certsteward/adapters/store/memory/memory_user_repository.hpp>

#include <algorithm>

#include <certsteward/adapters/store/memory/memory_transactions.hpp>
#include <certsteward/adapters/store/memory/paginate.hpp>

namespace certsteward::adapters::memory {
namespace {

domain::Error notFound() {
  return domain::makeError(domain::ErrorCode::not_found, "user not found");
}
domain::Error nameConflict() {
  return domain::makeError(domain::ErrorCode::conflict, "a user with this username exists");
}

}  // namespace

bool MemoryUserRepository::usernameTaken(const std::string& name, const domain::Id& except) const {
  return std::any_of(items_.begin(), items_.end(), [&](const auto& kv) {
    return kv.first != except && kv.second.username == name;
  });
}

domain::Status MemoryUserRepository::create(const domain::User& user) {
  std::lock_guard lock(mu_);
  if (usernameTaken(user.username, user.id)) return nameConflict();
  if (!items_.emplace(user.id, user).second) {
    return domain::makeError(domain::ErrorCode::conflict, "a user with this id exists");
  }
  undoInTransaction([this, id = user.id] {
    std::lock_guard relock(mu_);
    items_.erase(id);
  });
  return {};
}

domain::Result<domain::User> MemoryUserRepository::get(const domain::Id& id) const {
  std::lock_guard lock(mu_);
  const auto it = items_.find(id);
  if (it == items_.end()) return notFound();
  return it->second;
}

domain::Result<domain::User> MemoryUserRepository::getByUsername(
    const std::string& username) const {
  std::lock_guard lock(mu_);
  for (const auto& [id, u] : items_) {
    if (u.username == username) return u;
  }
  return notFound();
}

domain::Result<domain::Page<domain::User>> MemoryUserRepository::list(
    const domain::PageRequest& page) const {
  std::vector<domain::User> all;
  {
    std::lock_guard lock(mu_);
    for (const auto& [id, u] : items_)
      all.push_back(u);
  }
  return paginate(std::move(all), page);
}

domain::Status MemoryUserRepository::update(const domain::User& user) {
  std::lock_guard lock(mu_);
  const auto it = items_.find(user.id);
  if (it == items_.end()) return notFound();
  if (usernameTaken(user.username, user.id)) return nameConflict();
  undoInTransaction([this, old = it->second] { restore(old); });
  it->second = user;
  return {};
}

domain::Status MemoryUserRepository::remove(const domain::Id& id) {
  std::lock_guard lock(mu_);
  const auto it = items_.find(id);
  if (it == items_.end()) return notFound();
  undoInTransaction([this, old = it->second] { restore(old); });
  items_.erase(it);
  return {};
}

void MemoryUserRepository::restore(const domain::User& old) {
  std::lock_guard lock(mu_);
  items_[old.id] = old;
}

domain::Result<std::int64_t> MemoryUserRepository::count() const {
  std::lock_guard lock(mu_);
  return static_cast<std::int64_t>(items_.size());
}

}  // namespace certsteward::adapters::memory
