// MongoZoneRepository: zones, found for a name by its longest matching zone. Thread-safe: each call
// borrows a pooled client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_resource_repository.hpp>
#include <certsteward/ports/zone_repository.hpp>

namespace certsteward::adapters::mongo {

class MongoZoneRepository : public MongoResourceRepository<ports::ZoneRepository, domain::Zone> {
 public:
  explicit MongoZoneRepository(MongoDatabase& db);
  domain::Result<std::optional<domain::Zone>> findForName(const domain::Id& projectId,
                                                          const std::string& name) const override;
};

}  // namespace certsteward::adapters::mongo
