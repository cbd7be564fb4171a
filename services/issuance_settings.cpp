// A project's issuance settings, as the services read them.
#include <certsteward/services/issuance_settings.hpp>

namespace certsteward::services {

domain::Result<domain::ProjectIssuance> projectIssuance(const ports::ProjectRepository* projects,
                                                        const domain::Id& projectId) {
  if (projects == nullptr) return domain::ProjectIssuance{};
  auto project = projects->get(projectId);
  if (!project) return project.error();
  return project->issuance;
}

domain::Result<std::vector<domain::Id>> providerIdsOf(const ports::AcmeAccountRepository& accounts,
                                                      const ports::CaProviderRepository* providers,
                                                      const domain::Id& projectId,
                                                      const std::vector<domain::Id>& accountIds) {
  std::optional<domain::CaProviderList> list;
  std::vector<domain::Id> out;
  for (const auto& id : accountIds) {
    auto account = accounts.get(projectId, id);
    if (!account) {
      if (account.error().code != domain::ErrorCode::not_found) return account.error();
      out.emplace_back();
      continue;
    }
    if (!account->ca_provider_id.empty() || providers == nullptr) {
      out.push_back(account->ca_provider_id);
      continue;
    }
    if (!list) {
      auto stored = providers->get();
      if (!stored) return stored.error();
      list = stored->value_or(domain::CaProviderList{});
    }
    const auto* byUrl = domain::findCaProviderByUrl(*list, account->directory_url);
    out.push_back(byUrl != nullptr ? byUrl->id : domain::Id());
  }
  return out;
}

std::vector<domain::Id> preferenceOf(const domain::Certificate& cert) {
  if (!cert.acme_account_ids.empty()) return cert.acme_account_ids;
  if (cert.acme_account_id) return {*cert.acme_account_id};
  return {};
}

}  // namespace certsteward::services
