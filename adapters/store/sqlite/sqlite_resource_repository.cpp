// The lookups that zones, distributions and notification rules add.
#include "adapters/store/sqlite/sqlite_resource_repository.hpp"

#include <algorithm>

namespace certsteward::adapters::sqlite {

SqliteZoneRepository::SqliteZoneRepository(Database& db)
    : SqliteResourceRepository(
          db, "zone", [](const domain::Zone& z) { return std::optional<std::string>(z.domain); }) {}

domain::Result<std::optional<domain::Zone>> SqliteZoneRepository::findForName(
    const domain::Id& projectId, const std::string& name) const {
  // The name and each parent, longest first: one indexed lookup per label.
  for (const auto& candidate : domain::zoneCandidates(name)) {
    auto zones = byRef(projectId, candidate);
    if (!zones) return zones.error();
    if (!zones->empty()) return std::optional<domain::Zone>(zones->front());
  }
  return std::optional<domain::Zone>{};
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
  auto rules = byRef(projectId, std::nullopt);  // a project has few rules
  if (!rules) return rules.error();
  std::erase_if(*rules, [&](const domain::NotificationRule& r) {
    return !r.enabled || std::find(r.events.begin(), r.events.end(), kind) == r.events.end();
  });
  return rules;
}

}  // namespace certsteward::adapters::sqlite
