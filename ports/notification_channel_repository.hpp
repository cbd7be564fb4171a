// NotificationChannelRepository: where a project's events can be delivered. Thread-safe;
// errors as ProjectScopedRepository.
#pragma once

#include <certsteward/domain/notification.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>

namespace certsteward::ports {

class NotificationChannelRepository : public ProjectScopedRepository<domain::NotificationChannel> {
};

}  // namespace certsteward::ports
