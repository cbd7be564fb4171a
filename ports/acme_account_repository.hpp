// AcmeAccountRepository: the project's acme account records. Thread-safe; errors as
// ProjectScopedRepository.
#pragma once

#include <certsteward/domain/acme_account.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>

namespace certsteward::ports {

class AcmeAccountRepository : public ProjectScopedRepository<domain::AcmeAccount> {};

}  // namespace certsteward::ports
