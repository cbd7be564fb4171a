// Zones in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_zone_repository.hpp>

namespace certsteward::adapters::mongo {

MongoZoneRepository::MongoZoneRepository(MongoDatabase& db)
    : MongoResourceRepository(
          db, "zone", [](const domain::Zone& z) { return std::optional<std::string>(z.domain); }) {}

domain::Result<std::optional<domain::Zone>> MongoZoneRepository::findForName(
    const domain::Id& projectId, const std::string& name) const {
  // The name and each parent, longest first: one indexed lookup per label.
  for (const auto& candidate : domain::zoneCandidates(name)) {
    auto zones = byRef(projectId, candidate);
    if (!zones) return zones.error();
    if (!zones->empty()) return std::optional<domain::Zone>(zones->front());
  }
  return std::optional<domain::Zone>{};
}

}  // namespace certsteward::adapters::mongo
