// NotificationDeliveryRepository: the outbox — one record per message to one channel, written in
// the same transaction as its event, updated by the job that sends it. Thread-safe; errors as
// ProjectScopedRepository.
#pragma once

#include <cstdint>
#include <vector>

#include <certsteward/domain/notification.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>

namespace certsteward::ports {

class NotificationDeliveryRepository
    : public ProjectScopedRepository<domain::NotificationDelivery> {
 public:
  /** @return one page of the channel's deliveries, newest first (by id: ids grow with time). */
  virtual domain::Result<domain::Page<domain::NotificationDelivery>> listForChannel(
      const domain::Id& projectId, const domain::Id& channelId,
      const domain::PageRequest& page) const = 0;

  /**
   * @return the rule's deliveries with status `held` (waiting for its digest), oldest first,
   * at most `limit`.
   */
  virtual domain::Result<std::vector<domain::NotificationDelivery>> heldForRule(
      const domain::Id& projectId, const domain::Id& ruleId, std::int64_t limit) const = 0;
};

}  // namespace certsteward::ports
