// The role matrix, in one place: which org role or project role each action needs, and the
// check every service runs before it acts. A project the caller cannot see is not_found (404),
// exactly like one that does not exist; a visible one with too low a role is permission_denied.
#pragma once

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/user.hpp>
#include <certsteward/ports/membership_repository.hpp>
#include <certsteward/ports/project_repository.hpp>

namespace certsteward::services {

// The authenticated caller.
struct Principal {
  domain::User user;
  domain::Id session;  // the refresh-token family the access token belongs to; empty for old tokens
};

enum class Action {
  // org-scoped
  list_projects,  // the list is filtered to visible projects
  create_project,
  update_project,
  delete_project,
  manage_members,
  list_users,
  manage_users,
  read_audit_log,
  verify_audit_log,
  manage_settings,
  manage_ca_providers,
  read_license,
  activate_license,
  // project-scoped
  read_project,
  write_certificates,
  delete_certificates,
  export_private_key,  // a download that carries the private key (encrypted with the caller's
                       // password)
  cancel_job,
  retry_job,
  manage_project_config,  // ACME accounts, DNS credentials, zones, credentials, modules, ...
};

struct AccessRule {
  Action action;
  std::string_view name;
  std::optional<domain::OrgRole> org;          // org-scoped: the org role needed
  std::optional<domain::ProjectRole> project;  // project-scoped: the project role needed
};

std::span<const AccessRule> accessRules() noexcept;
const AccessRule& ruleFor(Action action) noexcept;

class AccessControl {
 public:
  AccessControl(const ports::MembershipRepository& memberships,
                const ports::ProjectRepository& projects)
      : memberships_(memberships), projects_(projects) {}

  // For org-scoped actions. permission_denied when the org role is too low.
  domain::Status check(const Principal& who, Action action) const;

  // For project-scoped actions (and org actions on one project). not_found when the project does
  // not exist or is not visible to the caller, whatever the org role; permission_denied when the
  // role is too low.
  domain::Status check(const Principal& who, Action action, const domain::Id& projectId) const;

  // The caller's role in the project, nullopt when it does not exist or is invisible to them.
  domain::Result<std::optional<domain::ProjectRole>> projectRole(const Principal& who,
                                                                 const domain::Id& projectId) const;

  // The caller's own project memberships (what GET /auth/me lists).
  domain::Result<std::vector<domain::Membership>> membershipsOf(const Principal& who) const {
    return memberships_.listForUser(who.user.id);
  }

 private:
  const ports::MembershipRepository& memberships_;
  const ports::ProjectRepository& projects_;
};

}  // namespace certsteward::services
