// MongoNotificationRuleRepository: notification rules, matched per event kind. Thread-safe: each
// call borrows a pooled client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_resource_repository.hpp>
#include <certsteward/ports/notification_rule_repository.hpp>

namespace certsteward::adapters::mongo {

class MongoNotificationRuleRepository
    : public MongoResourceRepository<ports::NotificationRuleRepository, domain::NotificationRule> {
 public:
  explicit MongoNotificationRuleRepository(MongoDatabase& db);
  domain::Result<std::vector<domain::NotificationRule>> matching(
      const domain::Id& projectId, domain::EventKind kind) const override;
};

}  // namespace certsteward::adapters::mongo
