// NotificationRuleRepository: which events of a project go to which channels. Thread-safe;
// errors as ProjectScopedRepository.
#pragma once

#include <vector>

#include <certsteward/domain/notification.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>

namespace certsteward::ports {

class NotificationRuleRepository : public ProjectScopedRepository<domain::NotificationRule> {
 public:
  /** @return the project's enabled rules subscribed to `kind`, oldest first. */
  virtual domain::Result<std::vector<domain::NotificationRule>> matching(
      const domain::Id& projectId, domain::EventKind kind) const = 0;
};

}  // namespace certsteward::ports
