// MongoDistributionRepository: distributions, listed per certificate. Thread-safe: each call
// borrows a pooled client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_resource_repository.hpp>
#include <certsteward/ports/distribution_repository.hpp>

namespace certsteward::adapters::mongo {

class MongoDistributionRepository
    : public MongoResourceRepository<ports::DistributionRepository, domain::Distribution> {
 public:
  explicit MongoDistributionRepository(MongoDatabase& db);
  domain::Result<std::vector<domain::Distribution>> listForCertificate(
      const domain::Id& projectId, const domain::Id& certificateId) const override;
};

}  // namespace certsteward::adapters::mongo
