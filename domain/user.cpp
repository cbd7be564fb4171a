// Role names and ranking, usernames, project names.
#include "domain/user.hpp"

#include "domain/name.hpp"

#include <algorithm>

#include "domain/enum_names.hpp"

namespace certsteward::domain {
namespace {

using OP = std::pair<OrgRole, std::string_view>;
constexpr auto kOrgRoles =
    makeEnumNames<OrgRole>(OP{OrgRole::owner, "owner"}, OP{OrgRole::admin, "admin"},
                           OP{OrgRole::operator_, "operator"}, OP{OrgRole::viewer, "viewer"});
using PP = std::pair<ProjectRole, std::string_view>;
constexpr auto kProjectRoles = makeEnumNames<ProjectRole>(PP{ProjectRole::admin, "admin"},
                                                          PP{ProjectRole::operator_, "operator"},
                                                          PP{ProjectRole::viewer, "viewer"});
using AP = std::pair<AuthSource, std::string_view>;
constexpr auto kAuthSources =
    makeEnumNames<AuthSource>(AP{AuthSource::local, "local"}, AP{AuthSource::ldap, "ldap"});

}  // namespace

std::string_view nameOf(OrgRole r) noexcept {
  return kOrgRoles.name(r);
}
std::string_view nameOf(ProjectRole r) noexcept {
  return kProjectRoles.name(r);
}
std::string_view nameOf(AuthSource s) noexcept {
  return kAuthSources.name(s);
}
std::optional<OrgRole> parseOrgRole(std::string_view t) noexcept {
  return kOrgRoles.parse(t);
}
std::optional<ProjectRole> parseProjectRole(std::string_view t) noexcept {
  return kProjectRoles.parse(t);
}
std::optional<AuthSource> parseAuthSource(std::string_view t) noexcept {
  return kAuthSources.parse(t);
}

std::optional<ProjectRole> effectiveProjectRole(OrgRole orgRole,
                                                std::optional<ProjectRole> membership) noexcept {
  if (atLeast(orgRole, OrgRole::admin)) return ProjectRole::admin;
  return membership;
}

bool isValidUsername(std::string_view name) noexcept {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '@' ||
           c == '-';
  });
}

bool isValidProjectName(std::string_view name) noexcept {
  return isValidName(name);
}

}  // namespace certsteward::domain
