// DistributionModules: the distribution modules this build can drive, by module name ("ssh",
// "webhook", ...). A name it does not know answers nullptr.
#pragma once

#include <string_view>

#include <certsteward/ports/distribution_module.hpp>

namespace certsteward::ports {

class DistributionModules {
 public:
  virtual ~DistributionModules() = default;
  /** @return the module, or nullptr when this build has none of that name. Thread-safe. */
  virtual DistributionModule* find(std::string_view module) = 0;
};

}  // namespace certsteward::ports
