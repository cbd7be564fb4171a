// The role matrix. docs/api.md lists it per endpoint.
#include <certsteward/services/access_control.hpp>

#include <array>

namespace certsteward::services {
namespace {

using A = Action;
using O = domain::OrgRole;
using P = domain::ProjectRole;

constexpr std::array kRules{
    AccessRule{A::list_projects, "list_projects", O::viewer, std::nullopt},
    AccessRule{A::create_project, "create_project", O::admin, std::nullopt},
    AccessRule{A::update_project, "update_project", std::nullopt, P::admin},
    AccessRule{A::delete_project, "delete_project", O::admin, std::nullopt},
    AccessRule{A::manage_members, "manage_members", std::nullopt, P::admin},
    AccessRule{A::list_users, "list_users", O::admin, std::nullopt},
    AccessRule{A::manage_users, "manage_users", O::admin, std::nullopt},
    AccessRule{A::read_audit_log, "read_audit_log", O::admin, std::nullopt},
    AccessRule{A::verify_audit_log, "verify_audit_log", O::owner, std::nullopt},
    AccessRule{A::manage_settings, "manage_settings", O::owner, std::nullopt},
    AccessRule{A::manage_ca_providers, "manage_ca_providers", O::admin, std::nullopt},
    AccessRule{A::read_license, "read_license", O::viewer, std::nullopt},
    AccessRule{A::activate_license, "activate_license", O::owner, std::nullopt},
    AccessRule{A::read_project, "read_project", std::nullopt, P::viewer},
    AccessRule{A::write_certificates, "write_certificates", std::nullopt, P::operator_},
    AccessRule{A::delete_certificates, "delete_certificates", std::nullopt, P::admin},
    AccessRule{A::export_private_key, "export_private_key", std::nullopt, P::admin},
    AccessRule{A::cancel_job, "cancel_job", std::nullopt, P::operator_},
    AccessRule{A::retry_job, "retry_job", std::nullopt, P::admin},
    AccessRule{A::manage_project_config, "manage_project_config", std::nullopt, P::admin},
};

domain::Error denied() {
  return makeError(domain::ErrorCode::permission_denied, "your role does not allow this");
}

}  // namespace

std::span<const AccessRule> accessRules() noexcept {
  return kRules;
}

const AccessRule& ruleFor(Action action) noexcept {
  for (const auto& r : kRules) {
    if (r.action == action) return r;
  }
  return kRules.front();  // unreachable: every action has a row (unit-tested)
}

domain::Status AccessControl::check(const Principal& who, Action action) const {
  const auto& rule = ruleFor(action);
  if (who.user.disabled) return makeError(domain::ErrorCode::unauthenticated, "user is disabled");
  if (!rule.org || !atLeast(who.user.org_role, *rule.org)) return denied();
  return {};
}

domain::Result<std::optional<domain::ProjectRole>> AccessControl::projectRole(
    const Principal& who, const domain::Id& projectId) const {
  // A project that does not exist is invisible to everyone, org owners included.
  if (auto project = projects_.get(projectId); !project) {
    if (project.error().code == domain::ErrorCode::not_found)
      return std::optional<domain::ProjectRole>{};
    return project.error();
  }
  if (atLeast(who.user.org_role, domain::OrgRole::admin))
    return effectiveProjectRole(who.user.org_role, {});
  auto membership = memberships_.get(projectId, who.user.id);
  if (!membership) {
    if (membership.error().code == domain::ErrorCode::not_found)
      return std::optional<domain::ProjectRole>{};
    return membership.error();
  }
  return effectiveProjectRole(who.user.org_role, membership->role);
}

domain::Status AccessControl::check(const Principal& who, Action action,
                                    const domain::Id& projectId) const {
  const auto& rule = ruleFor(action);
  if (who.user.disabled) return makeError(domain::ErrorCode::unauthenticated, "user is disabled");
  auto role = projectRole(who, projectId);
  if (!role) return role.error();
  if (!*role) return makeError(domain::ErrorCode::not_found, "project not found");
  if (rule.org)
    return atLeast(who.user.org_role, *rule.org) ? domain::Status{} : domain::Status{denied()};
  if (!rule.project || !atLeast(**role, *rule.project)) return denied();
  return {};
}

}  // namespace certsteward::services
