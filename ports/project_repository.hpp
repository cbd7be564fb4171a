// ProjectRepository: the org's projects.
#pragma once

#include <optional>
#include <vector>

#include <certsteward/domain/pagination.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/user.hpp>

namespace certsteward::ports {

class ProjectRepository {
 public:
  virtual ~ProjectRepository() = default;

  /** @return conflict when the id or the name is taken. Thread-safe. */
  virtual domain::Status create(const domain::Project& project) = 0;

  /** @return the project; not_found. */
  virtual domain::Result<domain::Project> get(const domain::Id& id) const = 0;

  /** @return one page, oldest first; only the projects in `only` when it is given. */
  virtual domain::Result<domain::Page<domain::Project>> list(
      const domain::PageRequest& page,
      const std::optional<std::vector<domain::Id>>& only = std::nullopt) const = 0;

  /** Replaces it. @return not_found; conflict when the new name is taken. */
  virtual domain::Status update(const domain::Project& project) = 0;

  /** Deletes it. @return not_found. */
  virtual domain::Status remove(const domain::Id& id) = 0;
};

}  // namespace certsteward::ports
