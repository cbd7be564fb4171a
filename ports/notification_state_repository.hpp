// NotificationStateRepository: what each rule remembers per subject (a failure it reported, the
// expiry thresholds it crossed). Thread-safe; errors as ProjectScopedRepository.
#pragma once

#include <optional>

#include <certsteward/domain/notification.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>

namespace certsteward::ports {

class NotificationStateRepository : public ProjectScopedRepository<domain::NotificationState> {
 public:
  /** @return the state of (rule, subject), nullopt when the rule never remembered anything. */
  virtual domain::Result<std::optional<domain::NotificationState>> find(
      const domain::Id& projectId, const domain::Id& ruleId, const domain::Id& subject) const = 0;
};

}  // namespace certsteward::ports
