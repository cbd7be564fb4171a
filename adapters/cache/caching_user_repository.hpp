// CachingUserRepository: a UserRepository decorator that keeps users by id for a short time
// (default 1 s), so authenticating a request does not read the store every time. Changes made
// through this decorator (update, remove) take effect at once; changes made by another instance
// on the same store are seen within the time to live. Everything else passes through.
// Thread-safe.
#pragma once

#include <chrono>

#include <certsteward/adapters/common/bounded_cache.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/user_repository.hpp>

namespace certsteward::adapters::cache {

class CachingUserRepository : public ports::UserRepository {
 public:
  CachingUserRepository(ports::UserRepository& inner, const ports::Clock& clock,
                        domain::Duration ttl = std::chrono::seconds{1}, std::size_t capacity = 4096)
      : inner_(inner), clock_(clock), ttl_(ttl), byId_(capacity) {}

  domain::Status create(const domain::User& user) override { return inner_.create(user); }
  domain::Result<domain::User> get(const domain::Id& id) const override;
  domain::Result<domain::User> getByUsername(const std::string& username) const override {
    return inner_.getByUsername(username);
  }
  domain::Result<domain::Page<domain::User>> list(const domain::PageRequest& page) const override {
    return inner_.list(page);
  }
  domain::Status update(const domain::User& user) override;
  domain::Status remove(const domain::Id& id) override;
  domain::Result<std::int64_t> count() const override { return inner_.count(); }

 private:
  ports::UserRepository& inner_;
  const ports::Clock& clock_;
  const domain::Duration ttl_;
  mutable common::BoundedCache<domain::User> byId_;
};

}  // namespace certsteward::adapters::cache
