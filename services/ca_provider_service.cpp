#include <certsteward/services/ca_provider_service.hpp>

#include <algorithm>

namespace certsteward::services {
namespace {

domain::Error notFound() {
  return makeError(domain::ErrorCode::not_found, "no such CA provider");
}

domain::Error accountField(const char* field, std::string message) {
  return domain::Error{
      domain::ErrorCode::invalid_argument, std::move(message), domain::kInvalidField, {field}};
}

// Every page of `list` (a repository's list(page)), item by item; stops at the first error.
template <class List, class Each>
domain::Status eachOf(List list, Each each) {
  for (std::int64_t page = 1;; ++page) {
    auto got = list(domain::PageRequest{page, domain::kMaxPageSize});
    if (!got) return got.error();
    for (auto& item : got->items) {
      if (auto s = each(item); !s) return s;
    }
    if (page * domain::kMaxPageSize >= got->total || got->items.empty()) return {};
  }
}

void applyLimit(domain::QuotaLimit& limit, const QuotaLimitChange& change) {
  if (change.max) limit.max = *change.max;
  if (change.window) limit.window = *change.window;
}

}  // namespace

void applyLimits(domain::CaRateLimits& limits, const CaRateLimitsChange& change) {
  if (change.certificates) applyLimit(limits.certificates, *change.certificates);
  if (change.orders) applyLimit(limits.orders, *change.orders);
  if (change.failed_validations) applyLimit(limits.failed_validations, *change.failed_validations);
}

domain::Status CaProviderService::manage(const Principal& who) const {
  return access_.check(who, Action::manage_ca_providers);
}

domain::Result<domain::CaProviderList> CaProviderService::load() const {
  auto stored = p_.providers.get();
  if (!stored) return stored.error();
  return stored->value_or(domain::CaProviderList{});
}

domain::Result<domain::CaProvider> CaProviderService::find(const domain::Id& id) const {
  auto list = load();
  if (!list) return list.error();
  const auto* provider = domain::findCaProvider(*list, id);
  if (provider == nullptr) return notFound();
  return *provider;
}

CaProviderView CaProviderService::viewOf(domain::CaProvider provider) const {
  CaProviderView view{std::move(provider), p_.issuer.info(), p_.dnsProviders.kinds(), false};
  bool someDns = false;
  for (const auto& kind : view.dns_providers)
    someDns = someDns || kind.available;
  const auto& challenges = view.issuer.challenges;
  const bool http01 =
      std::find(challenges.begin(), challenges.end(), "http-01") != challenges.end();
  view.available = view.provider.enabled && !view.issuer.issuer_type.empty() && (someDns || http01);
  return view;
}

void CaProviderService::readDirectory(domain::CaProvider& provider) const {
  auto meta = p_.issuer.readDirectory(provider.directory_url, provider.trust_bundle);
  if (meta) {
    domain::applyDirectoryMeta(provider, *meta, p_.clock.now());
  } else {
    provider.directory_read_at = p_.clock.now();
    provider.directory_error = meta.error().message.substr(0, 500);
  }
}

domain::Result<std::vector<CaProviderView>> CaProviderService::list(const Principal& who) const {
  if (auto allowed = access_.check(who, Action::read_license); !allowed) return allowed.error();
  auto list = load();
  if (!list) return list.error();
  std::vector<CaProviderView> views;
  for (auto& provider : list->providers)
    views.push_back(viewOf(std::move(provider)));
  return views;
}

domain::Result<CaProviderView> CaProviderService::get(const Principal& who,
                                                      const domain::Id& id) const {
  if (auto allowed = access_.check(who, Action::read_license); !allowed) return allowed.error();
  auto provider = find(id);
  if (!provider) return provider.error();
  return viewOf(std::move(*provider));
}

domain::Result<std::vector<domain::CaPreset>> CaProviderService::presets(
    const Principal& who) const {
  if (auto allowed = access_.check(who, Action::read_license); !allowed) return allowed.error();
  const auto all = domain::caPresets();
  return std::vector<domain::CaPreset>(all.begin(), all.end());
}

domain::Result<CaProviderView> CaProviderService::create(const Principal& who,
                                                         const RequestContext& ctx,
                                                         domain::CaProvider draft) {
  if (auto s = manage(who); !s) return s.error();
  const auto now = p_.clock.now();
  draft.id = p_.ids.next();
  draft.created_at = now;
  draft.updated_at = now;
  draft.profiles.clear();
  draft.directory_read_at.reset();
  draft.directory_error.clear();
  if (auto s = domain::validateCaProvider(draft); !s) return s.error();
  readDirectory(draft);  // outside the transaction: it waits on the network
  const auto done = work_.run(
      [&]() -> domain::Status {
        auto list = load();
        if (!list) return list.error();
        if (list->providers.size() >= domain::kMaxCaProviders) {
          return makeError(domain::ErrorCode::failed_precondition,
                           "there are already " + std::to_string(domain::kMaxCaProviders) +
                               " CA providers: delete one first");
        }
        if (auto s = domain::checkCaProviderUnique(*list, draft); !s) return s;
        list->providers.push_back(draft);
        if (auto s = p_.providers.put(*list); !s) return s;
        return audit_.record(&who, ctx, "ca_provider.create", "ca_provider", draft.id, std::nullopt,
                             "name=" + draft.name);
      },
      {kCaProvidersGuard});
  if (!done) return done.error();
  return viewOf(std::move(draft));
}

domain::Result<domain::CaProvider> CaProviderService::changeStored(
    const Principal& who, const RequestContext& ctx, const domain::Id& id, const char* action,
    const std::function<domain::Status(const domain::CaProviderList&, domain::CaProvider*)>&
        change) {
  domain::CaProvider result;
  const auto done = work_.run(
      [&]() -> domain::Status {
        auto list = load();
        if (!list) return list.error();
        auto* target = domain::findCaProvider(*list, id);
        if (target == nullptr) return notFound();
        if (auto s = change(*list, target); !s) return s;
        result = *target;
        if (auto s = p_.providers.put(*list); !s) return s;
        return audit_.record(&who, ctx, action, "ca_provider", id);
      },
      {kCaProvidersGuard});
  if (!done) return done.error();
  return result;
}

domain::Result<CaProviderView> CaProviderService::update(const Principal& who,
                                                         const RequestContext& ctx,
                                                         const domain::Id& id,
                                                         const CaProviderChange& change) {
  if (auto s = manage(who); !s) return s.error();
  auto stored = find(id);
  if (!stored) return stored.error();
  const auto now = p_.clock.now();
  const auto apply = [&](domain::CaProvider& p) {
    if (change.name) p.name = *change.name;
    if (change.directory_url) p.directory_url = *change.directory_url;
    if (change.trust_bundle) p.trust_bundle = *change.trust_bundle;
    if (change.eab_required) p.eab_required = *change.eab_required;
    if (change.caa_identities) p.caa_identities = *change.caa_identities;
    if (change.rate_limits) applyLimits(p.rate_limits, *change.rate_limits);
    if (change.enabled) p.enabled = *change.enabled;
    p.updated_at = now;
  };
  domain::CaProvider after = *stored;
  apply(after);
  if (auto s = domain::validateCaProvider(after); !s) return s.error();
  const bool moved = after.directory_url != stored->directory_url;
  // A new directory (or new trust in it) is read again, outside the transaction: it waits on the
  // network. A moved provider takes the new CA's CAA identities unless the change gives some.
  std::optional<domain::CaProvider> read;
  if (moved || after.trust_bundle != stored->trust_bundle) {
    read = after;
    if (moved && !change.caa_identities) read->caa_identities.clear();
    readDirectory(*read);
  }
  auto changed = changeStored(
      who, ctx, id, "ca_provider.update",
      [&](const domain::CaProviderList& list, domain::CaProvider* target) -> domain::Status {
        if (target->directory_url != stored->directory_url ||
            target->trust_bundle != stored->trust_bundle) {
          return makeError(domain::ErrorCode::conflict,
                           "the provider changed meanwhile; read it again");
        }
        if (moved) {  // checked under the guard every account's write takes
          auto users = accountsUsing(id);
          if (!users) return users.error();
          if (!users->empty()) {
            domain::Error e = makeError(domain::ErrorCode::conflict,
                                        "ACME accounts are registered at this directory: give "
                                        "them another provider, or add a new provider for the "
                                        "new URL",
                                        "DEPENDENCY_CONFLICT");
            e.references = std::move(*users);
            return e;
          }
        }
        apply(*target);  // onto what is stored now: a concurrent change of other fields stays
        if (read) {
          target->profiles = read->profiles;
          target->caa_identities = read->caa_identities;
          target->eab_required = read->eab_required;
          target->directory_read_at = read->directory_read_at;
          target->directory_error = read->directory_error;
        }
        if (auto s = domain::validateCaProvider(*target); !s) return s;
        return domain::checkCaProviderUnique(list, *target);
      });
  if (!changed) return changed.error();
  return viewOf(std::move(*changed));
}

domain::Status CaProviderService::remove(const Principal& who, const RequestContext& ctx,
                                         const domain::Id& id) {
  if (auto s = manage(who); !s) return s;
  return work_.run(
      [&]() -> domain::Status {
        auto list = load();
        if (!list) return list.error();
        const auto* provider = domain::findCaProvider(*list, id);
        if (provider == nullptr) return notFound();
        auto users = accountsUsing(id);
        if (!users) return users.error();
        if (!users->empty()) {
          domain::Error e = makeError(domain::ErrorCode::conflict,
                                      "the CA provider is still used by " +
                                          std::to_string(users->size()) + " ACME account(s)",
                                      "DEPENDENCY_CONFLICT");
          e.references = std::move(*users);
          return e;
        }
        const std::string name = provider->name;
        std::erase_if(list->providers, [&](const domain::CaProvider& p) { return p.id == id; });
        if (auto s = p_.providers.put(*list); !s) return s;
        return audit_.record(&who, ctx, "ca_provider.delete", "ca_provider", id, std::nullopt,
                             "name=" + name);
      },
      {kCaProvidersGuard});
}

domain::Result<CaProviderView> CaProviderService::refresh(const Principal& who,
                                                          const RequestContext& ctx,
                                                          const domain::Id& id) {
  if (auto s = manage(who); !s) return s.error();
  auto read = find(id);
  if (!read) return read.error();
  readDirectory(*read);
  auto changed = changeStored(
      who, ctx, id, "ca_provider.refresh",
      [&](const domain::CaProviderList&, domain::CaProvider* target) -> domain::Status {
        if (target->directory_url == read->directory_url &&
            target->trust_bundle == read->trust_bundle) {
          target->profiles = read->profiles;
          if (read->directory_error.empty()) {
            if (target->caa_identities.empty()) target->caa_identities = read->caa_identities;
            target->eab_required = read->eab_required;
          }
          target->directory_read_at = read->directory_read_at;
          target->directory_error = read->directory_error;
        }
        return domain::Status{};
      });
  if (!changed) return changed.error();
  return viewOf(std::move(*changed));
}

domain::Result<std::vector<std::string>> CaProviderService::accountsUsing(
    const domain::Id& id) const {
  std::vector<std::string> users;
  auto walked = eachOf(
      [&](const domain::PageRequest& page) { return p_.projects.list(page); },
      [&](const domain::Project& project) -> domain::Status {
        return eachOf(
            [&](const domain::PageRequest& page) { return p_.accounts.list(project.id, page); },
            [&](const domain::AcmeAccount& account) -> domain::Status {
              if (account.ca_provider_id == id && users.size() < 50) {
                users.push_back("project " + project.id + " acme_account " + account.id);
              }
              return {};
            });
      });
  if (!walked) return walked.error();
  return users;
}

domain::Status CaProviderService::bindAccount(domain::AcmeAccount& account,
                                              const domain::AcmeAccount* before,
                                              const Principal* who, const RequestContext& ctx) {
  auto list = load();
  if (!list) return list.error();
  const bool changed = before == nullptr || account.ca_provider_id != before->ca_provider_id;
  if (!account.ca_provider_id.empty()) {
    const auto* provider = domain::findCaProvider(*list, account.ca_provider_id);
    if (provider == nullptr)
      return accountField("ca_provider_id", "ca_provider_id names no CA provider");
    if (!provider->enabled && changed) {
      return accountField("ca_provider_id",
                          "ca_provider_id names a disabled CA provider (" + provider->name + ")");
    }
    account.directory_url = provider->directory_url;
  } else {
    if (account.directory_url.empty()) {
      return accountField("ca_provider_id", "ca_provider_id (or a directory_url) is required");
    }
    if (!account.directory_url.starts_with("https://")) {
      return makeError(domain::ErrorCode::invalid_argument, "directory_url must be an https:// URL",
                       domain::kMalformed);
    }
    const auto* provider = domain::findCaProviderByUrl(*list, account.directory_url);
    if (provider == nullptr) {
      // A bare directory URL: a custom provider for it, as an admin would have added.
      const auto* preset = domain::findCaPresetByUrl(account.directory_url);
      domain::CaProvider made =
          preset != nullptr ? domain::providerFromPreset(*preset) : domain::CaProvider{};
      made.id = p_.ids.next();
      made.name = domain::providerNameForUrl(*list, account.directory_url);
      made.directory_url = account.directory_url;
      made.created_at = made.updated_at = p_.clock.now();
      if (auto s = domain::validateCaProvider(made); !s) {
        return accountField("directory_url", "directory_url must be an https:// URL");
      }
      if (list->providers.size() >= domain::kMaxCaProviders) {
        return accountField("directory_url",
                            "directory_url is not one of the CA providers, and no more can be "
                            "added: use ca_provider_id");
      }
      list->providers.push_back(made);
      if (auto s = p_.providers.put(*list); !s) return s;
      if (auto s = audit_.record(who, ctx, "ca_provider.create", "ca_provider", made.id,
                                 std::nullopt, "name=" + made.name + " for=acme_account");
          !s) {
        return s;
      }
      provider = &list->providers.back();
    } else if (!provider->enabled &&
               (before == nullptr || before->ca_provider_id != provider->id)) {
      return accountField("directory_url", "directory_url belongs to a disabled CA provider (" +
                                               provider->name + ")");
    }
    account.ca_provider_id = provider->id;
  }
  if (before != nullptr && before->ca_provider_id != account.ca_provider_id &&
      !before->ca_provider_id.empty()) {
    // Another CA: the registration (and the key's kid) belonged to the old one.
    account.is_registered = false;
    account.account_url.clear();
    account.status = "pending";
  }
  return {};
}

domain::Result<AccountAdoption> CaProviderService::adoptAccounts() {
  AccountAdoption report;
  RequestContext ctx{"", "startup"};
  auto walked = eachOf(
      [&](const domain::PageRequest& page) { return p_.projects.list(page); },
      [&](const domain::Project& project) -> domain::Status {
        std::vector<domain::AcmeAccount> orphans;
        auto listed = eachOf(
            [&](const domain::PageRequest& page) { return p_.accounts.list(project.id, page); },
            [&](const domain::AcmeAccount& account) -> domain::Status {
              if (account.ca_provider_id.empty()) orphans.push_back(account);
              return {};
            });
        if (!listed) return listed;
        for (auto& account : orphans) {
          auto s = work_.inProject(
              project.id,
              [&]() -> domain::Status {
                auto fresh = p_.accounts.get(project.id, account.id);
                if (!fresh) return fresh.error();
                if (!fresh->ca_provider_id.empty()) return {};
                auto list = load();
                if (!list) return list.error();
                // The provider that has its URL, enabled or not; else one made for it.
                if (const auto* known = domain::findCaProviderByUrl(*list, fresh->directory_url)) {
                  fresh->ca_provider_id = known->id;
                } else if (auto bound = bindAccount(*fresh, nullptr, nullptr, ctx); !bound) {
                  return bound;
                }
                if (auto stored = p_.accounts.update(*fresh); !stored) return stored;
                ++report.adopted;
                return {};
              },
              {kCaProvidersGuard});
          if (!s && s.error().code != domain::ErrorCode::not_found) {
            if (s.error().code == domain::ErrorCode::unavailable) return s;  // the store
            report.skipped.push_back("project " + project.id + " acme_account " + account.id +
                                     ": " + s.error().message);
          }
        }
        return {};
      });
  if (!walked) return walked.error();
  return report;
}

std::string CaProviderService::trustBundleFor(const std::string& directoryUrl) const {
  auto list = load();
  if (!list) return {};
  const auto* provider = domain::findCaProviderByUrl(*list, directoryUrl);
  return provider != nullptr ? provider->trust_bundle : std::string();
}

}  // namespace certsteward::services
