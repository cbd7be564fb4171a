// ProjectScopedRepository<T>: the create/read/update/delete shape shared by every resource that
// lives under /projects/<id>/ (ACME accounts, DNS credentials, zones, credentials, module
// configurations, distributions, notification channels and rules). `T` has `id`, `project_id`.
// An entity of another project is not_found, exactly as if it did not exist. Every method is
// thread-safe.
#pragma once

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/pagination.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

template <class T>
class ProjectScopedRepository {
 public:
  virtual ~ProjectScopedRepository() = default;

  /** Stores a new entity. @return conflict when the id exists; unavailable on store outage. */
  virtual domain::Status create(const T& entity) = 0;

  /** @return the entity; not_found when absent or in another project. */
  virtual domain::Result<T> get(const domain::Id& projectId, const domain::Id& id) const = 0;

  /** @return one page of the project's entities, oldest first. */
  virtual domain::Result<domain::Page<T>> list(const domain::Id& projectId,
                                               const domain::PageRequest& page) const = 0;

  /** Replaces the stored entity with the same project and id. @return not_found. */
  virtual domain::Status update(const T& entity) = 0;

  /** Deletes it. @return not_found when absent or in another project. */
  virtual domain::Status remove(const domain::Id& projectId, const domain::Id& id) = 0;
};

}  // namespace certsteward::ports
