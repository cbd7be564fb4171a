// UserRepository: the org's users.
#pragma once

#include <cstdint>
#include <string>

#include <certsteward/domain/pagination.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/user.hpp>

namespace certsteward::ports {

class UserRepository {
 public:
  virtual ~UserRepository() = default;

  /** @return conflict when the id or the username is taken. Thread-safe. */
  virtual domain::Status create(const domain::User& user) = 0;

  /** @return the user; not_found. */
  virtual domain::Result<domain::User> get(const domain::Id& id) const = 0;

  /** @return the user with exactly this username; not_found. */
  virtual domain::Result<domain::User> getByUsername(const std::string& username) const = 0;

  /** @return one page, oldest first. */
  virtual domain::Result<domain::Page<domain::User>> list(
      const domain::PageRequest& page) const = 0;

  /** Replaces it. @return not_found; conflict when the new username is taken. */
  virtual domain::Status update(const domain::User& user) = 0;

  /** Deletes it. @return not_found. */
  virtual domain::Status remove(const domain::Id& id) = 0;

  /** @return how many users exist (0 on a fresh store: bootstrap the owner). */
  virtual domain::Result<std::int64_t> count() const = 0;
};

}  // namespace certsteward::ports
