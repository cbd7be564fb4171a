// Queries of the in-memory resource repositories.
#include <certsteward/adapters/store/memory/memory_resource_repositories.hpp>

namespace certsteward::adapters::memory {

bool isInZone(const std::string& name, const std::string& zone) {
  if (name == zone) return true;
  return name.size() > zone.size() && name.ends_with(zone) &&
         name[name.size() - zone.size() - 1] == '.';
}

domain::Result<std::optional<domain::Zone>> MemoryZoneRepository::findForName(
    const domain::Id& projectId, const std::string& name) const {
  const auto candidates = select(
      [&](const domain::Zone& z) { return z.project_id == projectId && isInZone(name, z.domain); });
  if (candidates.empty()) return std::optional<domain::Zone>{};
  return std::optional<domain::Zone>{*std::max_element(
      candidates.begin(), candidates.end(),
      [](const auto& a, const auto& b) { return a.domain.size() < b.domain.size(); })};
}

domain::Result<std::vector<domain::Distribution>> MemoryDistributionRepository::listForCertificate(
    const domain::Id& projectId, const domain::Id& certificateId) const {
  return select([&](const domain::Distribution& d) {
    return d.project_id == projectId && d.certificate_id == certificateId;
  });
}

domain::Result<std::vector<domain::NotificationRule>> MemoryNotificationRuleRepository::matching(
    const domain::Id& projectId, domain::EventKind kind) const {
  return select([&](const domain::NotificationRule& r) {
    return r.project_id == projectId && r.enabled &&
           std::find(r.events.begin(), r.events.end(), kind) != r.events.end();
  });
}

domain::Result<domain::Page<domain::NotificationDelivery>>
MemoryNotificationDeliveryRepository::listForChannel(const domain::Id& projectId,
                                                     const domain::Id& channelId,
                                                     const domain::PageRequest& page) const {
  auto deliveries = select([&](const domain::NotificationDelivery& d) {
    return d.project_id == projectId && d.channel_id == channelId;
  });
  std::reverse(deliveries.begin(), deliveries.end());  // newest first
  return paginate(std::move(deliveries), page);
}

domain::Result<std::vector<domain::NotificationDelivery>>
MemoryNotificationDeliveryRepository::heldForRule(const domain::Id& projectId,
                                                  const domain::Id& ruleId,
                                                  std::int64_t limit) const {
  auto held = select([&](const domain::NotificationDelivery& d) {
    return d.project_id == projectId && d.rule_id == ruleId &&
           d.status == domain::DeliveryStatus::held;
  });
  if (limit < 0) limit = 0;
  if (static_cast<std::int64_t>(held.size()) > limit) {
    held.resize(static_cast<std::size_t>(limit));
  }
  return held;
}

domain::Result<std::optional<domain::NotificationState>> MemoryNotificationStateRepository::find(
    const domain::Id& projectId, const domain::Id& ruleId, const domain::Id& subject) const {
  const auto states = select([&](const domain::NotificationState& s) {
    return s.project_id == projectId && s.rule_id == ruleId && s.subject == subject;
  });
  if (states.empty()) return std::optional<domain::NotificationState>{};
  return std::optional<domain::NotificationState>{states.front()};
}

}  // namespace certsteward::adapters::memory
