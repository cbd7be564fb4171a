// MongoNotificationDeliveryRepository: the notification outbox. Thread-safe: each call borrows a
// pooled client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_resource_repository.hpp>
#include <certsteward/ports/notification_delivery_repository.hpp>

namespace certsteward::adapters::mongo {

// ref: the channel (listForChannel); ref2: the rule, while the delivery is held (heldForRule).
class MongoNotificationDeliveryRepository
    : public MongoResourceRepository<ports::NotificationDeliveryRepository,
                                     domain::NotificationDelivery> {
 public:
  explicit MongoNotificationDeliveryRepository(MongoDatabase& db);
  domain::Result<domain::Page<domain::NotificationDelivery>> listForChannel(
      const domain::Id& projectId, const domain::Id& channelId,
      const domain::PageRequest& page) const override;
  domain::Result<std::vector<domain::NotificationDelivery>> heldForRule(
      const domain::Id& projectId, const domain::Id& ruleId, std::int64_t limit) const override;
};

}  // namespace certsteward::adapters::mongo
