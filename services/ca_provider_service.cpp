#include <certsteward/services/ca_provider_service.hpp>

namespace certsteward::services {

domain::Result<std::vector<CaProviderView>> CaProviderService::list(const Principal& who) const {
  if (auto allowed = access_.check(who, Action::read_license); !allowed) return allowed.error();
  std::vector<CaProviderView> providers;
  auto info = p_.issuer.info();
  if (info.issuer_type.empty()) return providers;
  CaProviderView view{std::move(info), p_.dnsProviders.kinds(), false};
  for (const auto& kind : view.dns_providers)
    view.available = view.available || kind.available;
  providers.push_back(std::move(view));
  return providers;
}

}  // namespace certsteward::services
