// What certificate creation, its changes and the issuance worker share about a project's
// issuance settings (domain/issuance_policy.hpp): reading them, and the CA providers an issuer
// preference orders from, as the policy judges them.
#pragma once

#include <vector>

#include <certsteward/domain/issuance_policy.hpp>
#include <certsteward/ports/acme_account_repository.hpp>
#include <certsteward/ports/project_repository.hpp>
#include <certsteward/ports/settings_documents.hpp>

namespace certsteward::services {

// The project's issuance settings (defaults when `projects` is null).
domain::Result<domain::ProjectIssuance> projectIssuance(const ports::ProjectRepository* projects,
                                                        const domain::Id& projectId);

// The CA provider of `account`: its ca_provider_id, else the provider of its directory URL in
// `providers`; "" when neither.
domain::Id providerIdOf(const domain::AcmeAccount& account,
                        const domain::CaProviderList& providers);

// The CA provider of each of `accountIds` (providerIdOf). An account that does not exist gives "".
domain::Result<std::vector<domain::Id>> providerIdsOf(const ports::AcmeAccountRepository& accounts,
                                                      const ports::CaProviderRepository* providers,
                                                      const domain::Id& projectId,
                                                      const std::vector<domain::Id>& accountIds);

// The accounts a certificate orders from as the policy judges them: its issuer preference, else
// its account, else none (the project's first account is judged when the job picks it).
std::vector<domain::Id> preferenceOf(const domain::Certificate& cert);

// The accounts a certificate orders from, as the issuance worker picks them: its own preference,
// else the project's default one, else the project's first account; empty when the project has
// no account.
domain::Result<std::vector<domain::Id>> orderingAccounts(
    const ports::AcmeAccountRepository& accounts, const domain::Certificate& cert,
    const domain::IssuanceDefaults& defaults);

}  // namespace certsteward::services
