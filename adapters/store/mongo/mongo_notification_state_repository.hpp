// MongoNotificationStateRepository: the state of a rule per subject. Thread-safe: each call borrows
// a pooled client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_resource_repository.hpp>
#include <certsteward/ports/notification_state_repository.hpp>

namespace certsteward::adapters::mongo {

// ref: "<rule id>/<subject>".
class MongoNotificationStateRepository
    : public MongoResourceRepository<ports::NotificationStateRepository,
                                     domain::NotificationState> {
 public:
  explicit MongoNotificationStateRepository(MongoDatabase& db);
  domain::Result<std::optional<domain::NotificationState>> find(
      const domain::Id& projectId, const domain::Id& ruleId,
      const domain::Id& subject) const override;
};

}  // namespace certsteward::adapters::mongo
