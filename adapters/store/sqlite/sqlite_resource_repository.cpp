// The lookups that zones, distributions, notification rules, deliveries and states add.
#include <certsteward/adapters/store/sqlite/sqlite_resource_repository.hpp>

#include <algorithm>

#include <certsteward/adapters/store/codec/resource_keys.hpp>

namespace certsteward::adapters::sqlite {

SqliteZoneRepository::SqliteZoneRepository(Database& db)
    : SqliteResourceRepository(
          db, "zone", [](const domain::Zone& z) { return std::optional<std::string>(z.domain); }) {}

domain::Result<std::optional<domain::Zone>> SqliteZoneRepository::findForName(
    const domain::Id& projectId, const std::string& name) const {
  return codec::zoneForName(name,
                            [&](const std::string& domain) { return byRef(projectId, domain); });
}

SqliteDistributionRepository::SqliteDistributionRepository(Database& db)
    : SqliteResourceRepository(db, "distribution", [](const domain::Distribution& d) {
        return std::optional<std::string>(d.certificate_id);
      }) {}

domain::Result<std::vector<domain::Distribution>> SqliteDistributionRepository::listForCertificate(
    const domain::Id& projectId, const domain::Id& certificateId) const {
  return byRef(projectId, certificateId);
}

SqliteNotificationRuleRepository::SqliteNotificationRuleRepository(Database& db)
    : SqliteResourceRepository(db, "notification_rule") {}

domain::Result<std::vector<domain::NotificationRule>> SqliteNotificationRuleRepository::matching(
    const domain::Id& projectId, domain::EventKind kind) const {
  return codec::rulesMatching(byRef(projectId, std::nullopt), kind);  // a project has few rules
}

SqliteNotificationDeliveryRepository::SqliteNotificationDeliveryRepository(Database& db)
    : SqliteResourceRepository(
          db, "notification_delivery",
          [](const domain::NotificationDelivery& d) {
            return std::optional<std::string>(d.channel_id);
          },
          &codec::heldDeliveryKey) {}

domain::Result<domain::Page<domain::NotificationDelivery>>
SqliteNotificationDeliveryRepository::listForChannel(const domain::Id& projectId,
                                                     const domain::Id& channelId,
                                                     const domain::PageRequest& page) const {
  return pageByRefNewestFirst(projectId, channelId, page);
}

domain::Result<std::vector<domain::NotificationDelivery>>
SqliteNotificationDeliveryRepository::heldForRule(const domain::Id& projectId,
                                                  const domain::Id& ruleId,
                                                  std::int64_t limit) const {
  return byRef2(projectId, ruleId, std::max<std::int64_t>(limit, 0));
}

SqliteNotificationStateRepository::SqliteNotificationStateRepository(Database& db)
    : SqliteResourceRepository(db, "notification_state", [](const domain::NotificationState& s) {
        return std::optional<std::string>(codec::notificationStateKey(s.rule_id, s.subject));
      }) {}

domain::Result<std::optional<domain::NotificationState>> SqliteNotificationStateRepository::find(
    const domain::Id& projectId, const domain::Id& ruleId, const domain::Id& subject) const {
  return codec::firstOf(byRef(projectId, codec::notificationStateKey(ruleId, subject)));
}

}  // namespace certsteward::adapters::sqlite
