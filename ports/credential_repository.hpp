// CredentialRepository: the project's credential records. Thread-safe; errors as
// ProjectScopedRepository.
#pragma once

#include <certsteward/domain/credential.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>

namespace certsteward::ports {

class CredentialRepository : public ProjectScopedRepository<domain::Credential> {};

}  // namespace certsteward::ports
