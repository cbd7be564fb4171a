// Notification rules in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_notification_rule_repository.hpp>

#include <algorithm>

#include <certsteward/adapters/store/codec/resource_keys.hpp>

namespace certsteward::adapters::mongo {

MongoNotificationRuleRepository::MongoNotificationRuleRepository(MongoDatabase& db)
    : MongoResourceRepository(db, "notification_rule") {}

domain::Result<std::vector<domain::NotificationRule>> MongoNotificationRuleRepository::matching(
    const domain::Id& projectId, domain::EventKind kind) const {
  return codec::rulesMatching(byRef(projectId, std::nullopt), kind);  // a project has few rules
}

}  // namespace certsteward::adapters::mongo
