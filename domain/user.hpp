// Users and the role ladder. Org roles rank owner > admin > operator > viewer; project roles
// rank admin > operator > viewer. Org owners and admins act as project admins everywhere;
// operators and viewers reach a project only through a membership.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/issuance_policy.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

enum class OrgRole { viewer = 0, operator_ = 1, admin = 2, owner = 3 };
enum class ProjectRole { viewer = 0, operator_ = 1, admin = 2 };
enum class AuthSource { local, ldap, oidc };

std::string_view nameOf(OrgRole r) noexcept;
std::string_view nameOf(ProjectRole r) noexcept;
std::string_view nameOf(AuthSource s) noexcept;
std::optional<OrgRole> parseOrgRole(std::string_view text) noexcept;
std::optional<ProjectRole> parseProjectRole(std::string_view text) noexcept;
std::optional<AuthSource> parseAuthSource(std::string_view text) noexcept;

constexpr bool atLeast(OrgRole have, OrgRole need) noexcept {
  return static_cast<int>(have) >= static_cast<int>(need);
}
constexpr bool atLeast(ProjectRole have, ProjectRole need) noexcept {
  return static_cast<int>(have) >= static_cast<int>(need);
}

// The role a user holds in a project: admin for org owners and admins, else the membership's
// role, else none (the project is invisible to them: 404).
std::optional<ProjectRole> effectiveProjectRole(OrgRole orgRole,
                                                std::optional<ProjectRole> membership) noexcept;

// A session (refresh-token family) ended by logout: its access tokens are refused until they
// would have expired anyway.
struct EndedSession {
  Id family_id;
  Timestamp until{};
};

struct User {
  Id id;
  std::string username;
  std::string password_hash;  // bcrypt; empty for ldap and oidc users
  OrgRole org_role = OrgRole::viewer;
  AuthSource auth_source = AuthSource::local;
  // For oidc users: "<issuer> <subject>" of the identity provider's account, so a name reused
  // there for another person never opens this account.
  std::string external_subject;
  bool disabled = false;
  bool totp_enabled = false;
  std::string totp_secret_sealed;   // SecretBox ciphertext; empty when not enrolled
  std::int64_t totp_last_step = 0;  // the time step of the last code accepted at login
  Timestamp created_at{};
  Timestamp updated_at{};
  // Access tokens issued before this instant are refused (a password change, a disable or a role
  // change ends every session at once, not when its access token expires).
  Timestamp tokens_valid_after{};
  std::vector<EndedSession> ended_sessions;  // pruned as they pass `until`
  // Profile preferences (GET/PATCH /auth/me/profile).
  std::string time_zone = "UTC";  // IANA name; times are shown in it
  std::string language = "en";    // BCP 47 tag
  // Per event kind ("cert.expiring_soon"): "on" or "off"; kinds not listed are "on".
  std::map<std::string, std::string> notification_preferences;
};

// Whether `tag` is a well-formed BCP 47 language tag (RFC 5646 syntax: language, then optional
// script, region, variants, extensions and private use; or a private-use tag "x-...").
bool isWellFormedLanguageTag(std::string_view tag) noexcept;

// Usernames: 1..64 characters of [a-z0-9._@-], case-folded by the caller.
bool isValidUsername(std::string_view name) noexcept;

struct Project {
  Id id;
  std::string name;
  std::string description;
  Timestamp created_at{};
  Timestamp updated_at{};
  ProjectIssuance issuance = {};  // issuance defaults and policy (project admins)
};

// Project names follow the one name rule (domain/name.hpp).
bool isValidProjectName(std::string_view name) noexcept;

struct Membership {
  Id project_id;
  Id user_id;
  ProjectRole role = ProjectRole::viewer;
  Timestamp created_at{};
};

}  // namespace certsteward::domain
