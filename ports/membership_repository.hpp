// MembershipRepository: which users belong to which projects, with which project role.
#pragma once

#include <vector>

#include <certsteward/domain/pagination.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/user.hpp>

namespace certsteward::ports {

class MembershipRepository {
 public:
  virtual ~MembershipRepository() = default;

  /** Adds or replaces the membership of (project_id, user_id). Thread-safe. */
  virtual domain::Status put(const domain::Membership& membership) = 0;

  /** @return the membership; not_found. */
  virtual domain::Result<domain::Membership> get(const domain::Id& projectId,
                                                 const domain::Id& userId) const = 0;

  /** Deletes it. @return not_found. */
  virtual domain::Status remove(const domain::Id& projectId, const domain::Id& userId) = 0;

  /** @return one page of a project's members, oldest first. */
  virtual domain::Result<domain::Page<domain::Membership>> listForProject(
      const domain::Id& projectId, const domain::PageRequest& page) const = 0;

  /** @return every membership of a user. */
  virtual domain::Result<std::vector<domain::Membership>> listForUser(
      const domain::Id& userId) const = 0;
};

}  // namespace certsteward::ports
