// Queries of the in-memory resource repositories.
#include "adapters/store/memory/memory_resource_repositories.hpp"

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

}  // namespace certsteward::adapters::memory
