// ModuleConfigRepository: the project's module config records. Thread-safe; errors as
// ProjectScopedRepository.
#pragma once

#include <certsteward/domain/module_config.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>

namespace certsteward::ports {

class ModuleConfigRepository : public ProjectScopedRepository<domain::ModuleConfig> {};

}  // namespace certsteward::ports
