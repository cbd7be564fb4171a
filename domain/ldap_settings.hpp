// The directory users log in against (org-wide, owner only): where it is, how to reach it
// safely, how to find a user and their groups, and which org role each group grants. The service
// account's password is kept sealed and never shown.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/user.hpp>

namespace certsteward::domain {

// ldaps: TLS from the first byte (port 636); starttls: plain LDAP upgraded before any bind;
// none: plain text, accepted only for a loopback host.
enum class LdapSecurity { none, starttls, ldaps };

std::string_view nameOf(LdapSecurity s) noexcept;
std::optional<LdapSecurity> parseLdapSecurity(std::string_view text) noexcept;

// Members of the group `group_dn` get `org_role` (the highest role of a user's groups wins).
struct LdapGroupMapping {
  std::string group_dn;
  OrgRole org_role = OrgRole::viewer;
};

struct LdapSettings {
  // false: directory users cannot log in, the settings stay. Settings saved before this field
  // existed were never used to log anyone in, so they read as disabled.
  bool enabled = false;
  std::string host;
  int port = 389;
  LdapSecurity security = LdapSecurity::starttls;
  std::string ca_bundle;  // PEM of the CAs that sign the directory's certificate; "": the system's
  std::string bind_dn;    // the service account that searches; "": anonymous search
  std::string base_dn;    // users are searched under it
  std::string user_filter = "(uid={username})";  // {username} is replaced, escaped per RFC 4515
  std::string username_attribute = "uid";        // its value becomes the local username
  std::string email_attribute = "mail";
  std::string group_base_dn;  // "": groups are not read (everyone gets default_org_role)
  std::string group_filter = "(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames))";
  std::string member_attribute = "member";  // the group attribute that holds member DNs
  std::vector<LdapGroupMapping> group_mappings;
  // The role of a user in no mapped group; nullopt: such a user is refused (deny_without_group).
  std::optional<OrgRole> default_org_role = OrgRole::viewer;
  int connect_timeout_seconds = 5;
  int operation_timeout_seconds = 10;  // each search or bind
  std::string bind_password_sealed;    // empty when none is configured
};

// Every rule of the settings, the first one broken as invalid_argument (reason kMalformed) whose
// message starts with the field: host (1-253 characters, no spaces or slashes), port 1-65535,
// security none only for a loopback host, ca_bundle PEM certificates (at most 64 KiB), base_dn
// required, user_filter parenthesised, balanced and containing {username}, attributes
// [A-Za-z0-9-;.] names, group mappings at most 100 with a group_dn each, default_org_role not
// owner, timeouts 1-60 s, text fields at most 1000 characters.
Status checkLdapSettings(const LdapSettings& settings);

// Parses "ldap://host[:port]" or "ldaps://host[:port]" (a trailing "/" allowed) into host, port
// and, for ldaps, security. invalid_argument naming "url" otherwise.
Status applyLdapUrl(std::string_view url, LdapSettings& settings);

// The org role that the directory groups `groups` (DNs) grant: the highest mapped role, else
// default_org_role; nullopt when the user is to be refused. DNs compare case-insensitively and
// without the spaces around ',' and '='.
std::optional<OrgRole> mapDirectoryRole(const LdapSettings& settings,
                                        const std::vector<std::string>& groups);

}  // namespace certsteward::domain
