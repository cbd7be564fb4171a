// ZoneRepository: the project's DNS zones. Thread-safe; errors as ProjectScopedRepository.
#pragma once

#include <optional>
#include <string>

#include <certsteward/domain/zone.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>

namespace certsteward::ports {

class ZoneRepository : public ProjectScopedRepository<domain::Zone> {
 public:
  /**
   * @return the project's zone with the longest `domain` that is `name` or a parent of it
   * (the zone that must answer a DNS-01 challenge for `name`), or nullopt.
   */
  virtual domain::Result<std::optional<domain::Zone>> findForName(
      const domain::Id& projectId, const std::string& name) const = 0;
};

}  // namespace certsteward::ports
