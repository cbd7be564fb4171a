// DistributionModule: delivers a certificate to the targets of a module configuration.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "domain/certificate.hpp"
#include "domain/distribution.hpp"
#include "domain/module_config.hpp"
#include "domain/result.hpp"

namespace certsteward::ports {

struct Deliverable {
  domain::Certificate certificate;
  std::string private_key_pem;  // opened by the caller; the module must not log it
};

class DistributionModule {
 public:
  virtual ~DistributionModule() = default;

  /** @return per-target results of checking what execute() would do, changing nothing. */
  virtual domain::Result<std::vector<domain::TargetResult>> dryRun(
      const domain::ModuleConfig& config, const Deliverable& item) = 0;

  /** Delivers to every target. @return per-target results (a failed target is not an error). */
  virtual domain::Result<std::vector<domain::TargetResult>> execute(
      const domain::ModuleConfig& config, const Deliverable& item) = 0;

  /** Restores what the last execute() replaced. failed_precondition when unsupported. */
  virtual domain::Result<std::vector<domain::TargetResult>> rollback(
      const domain::ModuleConfig& config) = 0;

  /** Whether the targets are reachable with their credentials. */
  virtual domain::Result<std::vector<domain::TargetResult>> health(
      const domain::ModuleConfig& config) = 0;

  /** Whether rollback() is supported. */
  virtual bool supportsRollback() const = 0;
};

using DistributionModulePtr = std::unique_ptr<DistributionModule>;

}  // namespace certsteward::ports
