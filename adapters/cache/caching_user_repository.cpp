#include <certsteward/adapters/cache/caching_user_repository.hpp>

namespace certsteward::adapters::cache {

domain::Result<domain::User> CachingUserRepository::get(const domain::Id& id) const {
  const auto now = clock_.now();
  if (auto hit = byId_.find(id, now)) return std::move(*hit);
  auto user = inner_.get(id);
  if (user) byId_.put(id, *user, now + ttl_, now);
  return user;
}

domain::Status CachingUserRepository::update(const domain::User& user) {
  byId_.erase(user.id);
  auto s = inner_.update(user);
  byId_.erase(user.id);  // a get() racing with the update may have cached the old value
  return s;
}

domain::Status CachingUserRepository::remove(const domain::Id& id) {
  byId_.erase(id);
  auto s = inner_.remove(id);
  byId_.erase(id);
  return s;
}

}  // namespace certsteward::adapters::cache
