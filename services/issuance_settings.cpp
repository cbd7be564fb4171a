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

domain::Id providerIdOf(const domain::AcmeAccount& account,
                        const domain::CaProviderList& providers) {
  if (!account.ca_provider_id.empty()) return account.ca_provider_id;
  const auto* byUrl = domain::findCaProviderByUrl(providers, account.directory_url);
  return byUrl != nullptr ? byUrl->id : domain::Id();
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
    out.push_back(providerIdOf(*account, *list));
  }
  return out;
}

std::vector<domain::Id> preferenceOf(const domain::Certificate& cert) {
  if (!cert.acme_account_ids.empty()) return cert.acme_account_ids;
  if (cert.acme_account_id) return {*cert.acme_account_id};
  return {};
}

domain::Result<std::vector<domain::Id>> orderingAccounts(
    const ports::AcmeAccountRepository& accounts, const domain::Certificate& cert,
    const domain::IssuanceDefaults& defaults) {
  auto preference = preferenceOf(cert);
  if (preference.empty()) preference = defaults.acme_account_ids;
  if (!preference.empty()) return preference;
  auto first = accounts.list(cert.project_id, domain::PageRequest{1, 1});
  if (!first) return first.error();
  if (!first->items.empty()) preference = {first->items.front().id};
  return preference;
}

}  // namespace certsteward::services
