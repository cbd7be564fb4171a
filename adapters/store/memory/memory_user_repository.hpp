// MemoryUserRepository: users with unique usernames. Thread-safe.
#pragma once

#include <map>
#include <mutex>

#include <certsteward/ports/user_repository.hpp>

namespace certsteward::adapters::memory {

class MemoryUserRepository : public ports::UserRepository {
 public:
  domain::Status create(const domain::User& user) override;
  domain::Result<domain::User> get(const domain::Id& id) const override;
  domain::Result<domain::User> getByUsername(const std::string& username) const override;
  domain::Result<domain::Page<domain::User>> list(const domain::PageRequest& page) const override;
  domain::Status update(const domain::User& user) override;
  domain::Status remove(const domain::Id& id) override;
  domain::Result<std::int64_t> count() const override;

 private:
  void restore(const domain::User& old);  // undo of a write inside a transaction
  bool usernameTaken(const std::string& name, const domain::Id& except) const;

  mutable std::mutex mu_;
  std::map<domain::Id, domain::User> items_;
};

}  // namespace certsteward::adapters::memory
