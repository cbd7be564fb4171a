// Notification deliveries in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_notification_delivery_repository.hpp>

#include <certsteward/adapters/store/codec/resource_keys.hpp>

namespace certsteward::adapters::mongo {

MongoNotificationDeliveryRepository::MongoNotificationDeliveryRepository(MongoDatabase& db)
    : MongoResourceRepository(
          db, "notification_delivery",
          [](const domain::NotificationDelivery& d) {
            return std::optional<std::string>(d.channel_id);
          },
          &codec::heldDeliveryKey) {}

domain::Result<domain::Page<domain::NotificationDelivery>>
MongoNotificationDeliveryRepository::listForChannel(const domain::Id& projectId,
                                                    const domain::Id& channelId,
                                                    const domain::PageRequest& page) const {
  return pageByRefNewestFirst(projectId, channelId, page);
}

domain::Result<std::vector<domain::NotificationDelivery>>
MongoNotificationDeliveryRepository::heldForRule(const domain::Id& projectId,
                                                 const domain::Id& ruleId,
                                                 std::int64_t limit) const {
  return byRef2(projectId, ruleId, limit);
}

}  // namespace certsteward::adapters::mongo
