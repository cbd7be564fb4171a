// Zones in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_zone_repository.hpp>

#include <certsteward/adapters/store/codec/resource_keys.hpp>

namespace certsteward::adapters::mongo {

MongoZoneRepository::MongoZoneRepository(MongoDatabase& db)
    : MongoResourceRepository(
          db, "zone", [](const domain::Zone& z) { return std::optional<std::string>(z.domain); }) {}

domain::Result<std::optional<domain::Zone>> MongoZoneRepository::findForName(
    const domain::Id& projectId, const std::string& name) const {
  return codec::zoneForName(name,
                            [&](const std::string& domain) { return byRef(projectId, domain); });
}

}  // namespace certsteward::adapters::mongo
