// Notification states in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_notification_state_repository.hpp>

#include <certsteward/adapters/store/codec/resource_keys.hpp>

namespace certsteward::adapters::mongo {

MongoNotificationStateRepository::MongoNotificationStateRepository(MongoDatabase& db)
    : MongoResourceRepository(db, "notification_state", [](const domain::NotificationState& s) {
        return std::optional<std::string>(codec::notificationStateKey(s.rule_id, s.subject));
      }) {}

domain::Result<std::optional<domain::NotificationState>> MongoNotificationStateRepository::find(
    const domain::Id& projectId, const domain::Id& ruleId, const domain::Id& subject) const {
  return codec::firstOf(byRef(projectId, codec::notificationStateKey(ruleId, subject)));
}

}  // namespace certsteward::adapters::mongo
