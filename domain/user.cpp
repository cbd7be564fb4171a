// Role names and ranking, usernames, project names.
#include <certsteward/domain/user.hpp>

#include <cctype>
#include <vector>

#include <certsteward/domain/name.hpp>

#include <algorithm>

#include <certsteward/domain/enum_names.hpp>

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
constexpr auto kAuthSources = makeEnumNames<AuthSource>(
    AP{AuthSource::local, "local"}, AP{AuthSource::ldap, "ldap"}, AP{AuthSource::oidc, "oidc"});

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

namespace {

bool allOf(std::string_view s, int (*pred)(int)) {
  for (const char c : s) {
    if (pred(static_cast<unsigned char>(c)) == 0) return false;
  }
  return true;
}

}  // namespace

bool isWellFormedLanguageTag(std::string_view tag) noexcept {
  if (tag.empty() || tag.size() > 64) return false;
  std::vector<std::string_view> parts;
  for (std::size_t at = 0;;) {
    const auto dash = tag.find('-', at);
    parts.push_back(tag.substr(at, dash == std::string_view::npos ? dash : dash - at));
    if (dash == std::string_view::npos) break;
    at = dash + 1;
  }
  for (const auto p : parts) {
    if (p.empty() || p.size() > 8 || !allOf(p, &isalnum)) return false;
  }
  std::size_t i = 0;
  const auto privateUse = [&](std::size_t from) {
    // "x" then one or more 1..8 alphanumerics (already checked).
    return from + 1 < parts.size();
  };
  if (parts[0] == "x" || parts[0] == "X") return privateUse(0);
  // language: 2-3 letters (with up to three extlangs of 3 letters) or 5-8 letters
  if (!allOf(parts[0], &isalpha) || parts[0].size() == 4 || parts[0].size() < 2) return false;
  i = 1;
  if (parts[0].size() <= 3) {
    for (int ext = 0;
         ext < 3 && i < parts.size() && parts[i].size() == 3 && allOf(parts[i], &isalpha); ++ext)
      ++i;
  }
  if (i < parts.size() && parts[i].size() == 4 && allOf(parts[i], &isalpha)) ++i;  // script
  if (i < parts.size() && ((parts[i].size() == 2 && allOf(parts[i], &isalpha)) ||
                           (parts[i].size() == 3 && allOf(parts[i], &isdigit)))) {
    ++i;  // region
  }
  while (i < parts.size() &&  // variants
         ((parts[i].size() >= 5) ||
          (parts[i].size() == 4 && std::isdigit(static_cast<unsigned char>(parts[i][0])) != 0))) {
    ++i;
  }
  while (i < parts.size() && parts[i].size() == 1) {  // extensions and private use
    const char singleton = static_cast<char>(std::tolower(static_cast<unsigned char>(parts[i][0])));
    if (singleton == 'x') return privateUse(i);
    ++i;
    std::size_t n = 0;
    while (i < parts.size() && parts[i].size() >= 2) {
      ++i;
      ++n;
    }
    if (n == 0) return false;
  }
  return i == parts.size();
}

}  // namespace certsteward::domain
