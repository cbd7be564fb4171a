// Distributions in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_distribution_repository.hpp>

namespace certsteward::adapters::mongo {

MongoDistributionRepository::MongoDistributionRepository(MongoDatabase& db)
    : MongoResourceRepository(db, "distribution", [](const domain::Distribution& d) {
        return std::optional<std::string>(d.certificate_id);
      }) {}

domain::Result<std::vector<domain::Distribution>> MongoDistributionRepository::listForCertificate(
    const domain::Id& projectId, const domain::Id& certificateId) const {
  return byRef(projectId, certificateId);
}

}  // namespace certsteward::adapters::mongo
