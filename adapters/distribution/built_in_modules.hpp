// The distribution modules of this build, by module name: ssh, file, haproxy, webhook.
#pragma once

#include <map>
#include <memory>
#include <string>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/adapters/distribution/file_module.hpp>
#include <certsteward/ports/distribution_modules.hpp>

namespace certsteward::adapters::distribution {

class BuiltInModules : public ports::DistributionModules {
 public:
  // `outbound`: the policy of the webhook module's connections (network.outbound_allow).
  BuiltInModules(FileModuleSettings file, std::shared_ptr<const common::Outbound> outbound);
  ports::DistributionModule* find(std::string_view module) override;

 private:
  std::map<std::string, ports::DistributionModulePtr, std::less<>> modules_;
};

}  // namespace certsteward::adapters::distribution
