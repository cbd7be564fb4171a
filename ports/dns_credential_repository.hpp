// DnsCredentialRepository: the project's dns credential records. Thread-safe; errors as
// ProjectScopedRepository.
#pragma once

#include <certsteward/domain/dns_credential.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>

namespace certsteward::ports {

class DnsCredentialRepository : public ProjectScopedRepository<domain::DnsCredential> {};

}  // namespace certsteward::ports
