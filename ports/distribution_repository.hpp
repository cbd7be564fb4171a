// DistributionRepository: where each certificate is delivered. Thread-safe; errors as
// ProjectScopedRepository.
#pragma once

#include <vector>

#include <certsteward/domain/distribution.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>

namespace certsteward::ports {

class DistributionRepository : public ProjectScopedRepository<domain::Distribution> {
 public:
  /** @return every distribution of one certificate, oldest first (possibly empty). */
  virtual domain::Result<std::vector<domain::Distribution>> listForCertificate(
      const domain::Id& projectId, const domain::Id& certificateId) const = 0;
};

}  // namespace certsteward::ports
