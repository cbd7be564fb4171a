// Projects and memberships.
#include <certsteward/services/project_service.hpp>

#include <algorithm>

#include <certsteward/domain/name.hpp>
#include <certsteward/services/issuance_settings.hpp>

namespace certsteward::services {
namespace {

domain::Status validName(const std::string& name) {
  if (!domain::isValidProjectName(name)) {
    return makeError(domain::ErrorCode::invalid_argument, std::string("name ") + domain::kNameRule);
  }
  return {};
}

domain::Status validDescription(const std::string& description) {
  if (description.size() > 1000) {
    return makeError(domain::ErrorCode::invalid_argument,
                     "description must be at most 1000 characters");
  }
  return {};
}

}  // namespace

domain::Result<std::vector<std::string>> ProjectService::contents(const domain::Id& projectId) {
  std::vector<std::string> refs;
  const domain::PageRequest few = *domain::makePageRequest(1, 5);
  auto certs = p_.certificates.list(projectId, {}, few);
  if (!certs) return certs.error();
  for (const auto& c : certs->items)
    refs.push_back("certificate " + c.id);
  const auto add = [&](const char* kind, auto& repo) -> domain::Status {
    auto page = repo.list(projectId, few);
    if (!page) return page.error();
    for (const auto& item : page->items)
      refs.push_back(std::string(kind) + " " + item.id);
    return {};
  };
  if (auto s = add("acme_account", p_.acmeAccounts); !s) return s.error();
  if (auto s = add("dns_credential", p_.dnsCredentials); !s) return s.error();
  if (auto s = add("zone", p_.zones); !s) return s.error();
  if (auto s = add("credential", p_.credentials); !s) return s.error();
  if (auto s = add("module_config", p_.moduleConfigs); !s) return s.error();
  if (auto s = add("notification_channel", p_.notificationChannels); !s) return s.error();
  if (auto s = add("notification_rule", p_.notificationRules); !s) return s.error();
  return refs;
}

domain::Result<domain::Project> ProjectService::create(const Principal& who,
                                                       const RequestContext& ctx, std::string name,
                                                       std::string description) {
  if (auto s = access_.check(who, Action::create_project); !s) return s.error();
  if (auto s = validName(name); !s) return s.error();
  if (auto s = validDescription(description); !s) return s.error();
  const domain::Timestamp now = p_.clock.now();
  domain::Project project{p_.ids.next(), std::move(name), std::move(description), now, now};
  const domain::Status done = work_.run([&]() -> domain::Status {
    if (auto s = p_.projects.create(project); !s) return s;
    return audit_.record(&who, ctx, "project.create", "project", project.id, project.id);
  });
  if (!done) return done.error();
  return project;
}

domain::Result<domain::Page<domain::Project>> ProjectService::list(
    const Principal& who, const domain::PageRequest& page) {
  if (auto s = access_.check(who, Action::list_projects); !s) return s.error();
  if (atLeast(who.user.org_role, domain::OrgRole::admin)) return p_.projects.list(page);
  auto memberships = p_.memberships.listForUser(who.user.id);
  if (!memberships) return memberships.error();
  std::vector<domain::Id> ids;
  for (const auto& m : *memberships)
    ids.push_back(m.project_id);
  return p_.projects.list(page, ids);
}

domain::Result<domain::Project> ProjectService::get(const Principal& who, const domain::Id& id) {
  if (auto s = access_.check(who, Action::read_project, id); !s) return s.error();
  return p_.projects.get(id);
}

domain::Result<domain::Project> ProjectService::update(const Principal& who,
                                                       const RequestContext& ctx,
                                                       const domain::Id& id,
                                                       const ProjectChanges& changes) {
  if (auto s = access_.check(who, Action::update_project, id); !s) return s.error();
  if (changes.name) {
    if (auto s = validName(*changes.name); !s) return s.error();
  }
  if (changes.description) {
    if (auto s = validDescription(*changes.description); !s) return s.error();
  }
  // Read and written under the project's guard: the document also holds the issuance settings,
  // which a concurrent PUT .../issuance-settings must not lose.
  std::optional<domain::Project> project;
  const domain::Status done = work_.inProject(id, [&]() -> domain::Status {
    auto stored = p_.projects.get(id);
    if (!stored) return stored.error();
    project = std::move(*stored);
    if (changes.name) project->name = *changes.name;
    if (changes.description) project->description = *changes.description;
    project->updated_at = p_.clock.now();
    if (auto s = p_.projects.update(*project); !s) return s;
    return audit_.record(&who, ctx, "project.update", "project", id, id);
  });
  if (!done) return done.error();
  return std::move(*project);
}

domain::Status ProjectService::remove(const Principal& who, const RequestContext& ctx,
                                      const domain::Id& id) {
  if (auto s = access_.check(who, Action::read_project, id); !s) return s.error();  // 404 first
  if (auto s = access_.check(who, Action::delete_project); !s) return s.error();
  return work_.inProject(id, [&]() -> domain::Status {
    auto held = contents(id);
    if (!held) return held.error();
    if (!held->empty()) {
      domain::Error e = makeError(domain::ErrorCode::conflict,
                                  "the project still holds " + std::to_string(held->size()) +
                                      " or more resource(s); delete them first",
                                  "DEPENDENCY_CONFLICT");
      e.references = std::move(*held);
      return e;
    }
    for (int round = 0; round < 1000; ++round) {  // bounded: 100 members per round
      auto members = p_.memberships.listForProject(id, *domain::makePageRequest(1, 100));
      if (!members) return members.error();
      if (members->items.empty()) break;
      for (const auto& m : members->items) {
        if (auto s = p_.memberships.remove(id, m.user_id); !s) return s;
      }
    }
    if (auto s = p_.projects.remove(id); !s) return s;
    return audit_.record(&who, ctx, "project.delete", "project", id, id);
  });
}

domain::Result<domain::ProjectIssuance> ProjectService::issuance(const Principal& who,
                                                                 const domain::Id& projectId) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  auto project = p_.projects.get(projectId);
  if (!project) return project.error();
  return project->issuance;
}

domain::Result<domain::ProjectIssuance> ProjectService::setIssuance(
    const Principal& who, const RequestContext& ctx, const domain::Id& projectId,
    const domain::ProjectIssuance& issuance) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  if (auto s = access_.check(who, Action::manage_project_config, projectId); !s) return s.error();
  if (auto s = domain::validateProjectIssuance(issuance); !s) return s.error();
  const auto field = [](std::string name, std::string message) {
    return domain::Error{
        domain::ErrorCode::invalid_argument, name + " " + message, domain::kInvalidField, {name}};
  };
  const auto& defaults = issuance.defaults;
  if (!defaults.profile.empty() && defaults.acme_account_ids.empty()) {
    return field("defaults.profile",
                 "needs defaults.acme_account_ids: a profile belongs to one CA");
  }
  std::optional<domain::Project> out;
  const domain::Status done = work_.inProject(projectId, [&]() -> domain::Status {
    auto project = p_.projects.get(projectId);
    if (!project) return project.error();
    std::optional<domain::AcmeAccount> first;
    for (const auto& id : defaults.acme_account_ids) {
      auto account = p_.acmeAccounts.get(projectId, id);
      if (!account) {
        if (account.error().code != domain::ErrorCode::not_found) return account.error();
        return field("defaults.acme_account_ids", "must name ACME accounts of this project");
      }
      if (!first) first = *account;
    }
    domain::CaProviderList providers;
    if (p_.providers != nullptr) {
      auto list = p_.providers->get();
      if (!list) return list.error();
      if (*list) providers = **list;
      if (!defaults.profile.empty()) {
        const auto* provider = domain::findCaProvider(providers, first->ca_provider_id);
        if (provider == nullptr) {
          return field("defaults.profile",
                       "cannot be checked: the first default ACME account has no CA provider");
        }
        if (auto s = domain::checkProfile(*provider, defaults.profile); !s) {
          return domain::Error{domain::ErrorCode::invalid_argument,
                               "defaults." + s.error().message,
                               domain::kInvalidField,
                               {"defaults.profile"}};
        }
      }
      for (const auto& id : issuance.policy.allowed_ca_provider_ids) {
        if (domain::findCaProvider(providers, id) == nullptr) {
          return field("policy.allowed_ca_provider_ids", "names no CA provider: " + id);
        }
      }
    }
    // The default preference keeps the policy it comes with.
    const auto& allowed = issuance.policy.allowed_ca_provider_ids;
    if (!allowed.empty()) {
      for (const auto& id : defaults.acme_account_ids) {
        auto account = p_.acmeAccounts.get(projectId, id);
        if (!account) return account.error();
        const domain::Id provider = providerIdOf(*account, providers);
        if (std::find(allowed.begin(), allowed.end(), provider) == allowed.end()) {
          return field("defaults.acme_account_ids",
                       "names ACME account " + account->name +
                           ", whose CA provider policy.allowed_ca_provider_ids does not allow");
        }
      }
    }
    project->issuance = issuance;
    project->updated_at = p_.clock.now();
    if (auto s = p_.projects.update(*project); !s) return s;
    out = std::move(*project);
    return audit_.record(&who, ctx, "project.issuance_update", "project", projectId, projectId);
  });
  if (!done) return done.error();
  return out->issuance;
}

domain::Result<domain::Page<domain::Membership>> ProjectService::members(
    const Principal& who, const domain::Id& projectId, const domain::PageRequest& page) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  return p_.memberships.listForProject(projectId, page);
}

domain::Result<domain::Membership> ProjectService::putMember(const Principal& who,
                                                             const RequestContext& ctx,
                                                             const domain::Id& projectId,
                                                             const domain::Id& userId,
                                                             domain::ProjectRole role) {
  if (auto s = access_.check(who, Action::manage_members, projectId); !s) return s.error();
  auto user = p_.users.get(userId);
  if (!user) return user.error();
  domain::Membership m{projectId, userId, role, p_.clock.now()};
  std::optional<domain::Membership> out;
  const domain::Status done = work_.inProject(projectId, [&]() -> domain::Status {
    if (auto s = p_.memberships.put(m); !s) return s;
    auto stored = p_.memberships.get(projectId, userId);
    if (!stored) return stored.error();
    out = std::move(*stored);
    return audit_.record(&who, ctx, "project.member.put", "membership", userId, projectId,
                         std::string("role=") + std::string(nameOf(role)));
  });
  if (!done) return done.error();
  return std::move(*out);
}

domain::Status ProjectService::removeMember(const Principal& who, const RequestContext& ctx,
                                            const domain::Id& projectId, const domain::Id& userId) {
  if (auto s = access_.check(who, Action::manage_members, projectId); !s) return s.error();
  return work_.inProject(projectId, [&]() -> domain::Status {
    if (auto s = p_.memberships.remove(projectId, userId); !s) return s;
    return audit_.record(&who, ctx, "project.member.remove", "membership", userId, projectId);
  });
}

}  // namespace certsteward::services
