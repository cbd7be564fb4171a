// Notification rules in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_notification_rule_repository.hpp>

#include <algorithm>

namespace certsteward::adapters::mongo {

MongoNotificationRuleRepository::MongoNotificationRuleRepository(MongoDatabase& db)
    : MongoResourceRepository(db, "notification_rule") {}

domain::Result<std::vector<domain::NotificationRule>> MongoNotificationRuleRepository::matching(
    const domain::Id& projectId, domain::EventKind kind) const {
  auto rules = byRef(projectId, std::nullopt);
  if (!rules) return rules.error();
  std::erase_if(*rules, [&](const domain::NotificationRule& r) {
    return !r.enabled || std::find(r.events.begin(), r.events.end(), kind) == r.events.end();
  });
  return rules;
}

}  // namespace certsteward::adapters::mongo
