#include <certsteward/adapters/distribution/built_in_modules.hpp>

#include <certsteward/adapters/distribution/haproxy_module.hpp>
#include <certsteward/adapters/distribution/ssh_module.hpp>
#include <certsteward/adapters/distribution/webhook_module.hpp>

namespace certsteward::adapters::distribution {

BuiltInModules::BuiltInModules(FileModuleSettings file,
                               std::shared_ptr<const common::Outbound> outbound) {
  modules_.emplace("ssh", std::make_unique<SshModule>());
  modules_.emplace("file", std::make_unique<FileModule>(std::move(file)));
  modules_.emplace("haproxy", std::make_unique<HaproxyModule>());
  modules_.emplace("webhook", std::make_unique<WebhookModule>(std::move(outbound)));
}

ports::DistributionModule* BuiltInModules::find(std::string_view module) {
  const auto it = modules_.find(module);
  return it == modules_.end() ? nullptr : it->second.get();
}

}  // namespace certsteward::adapters::distribution
