// LDAP settings rules and the group-to-role mapping.
#include <certsteward/domain/ldap_settings.hpp>

#include <algorithm>

#include <certsteward/domain/encoding.hpp>
#include <certsteward/domain/enum_names.hpp>
#include <certsteward/domain/network_names.hpp>
#include <certsteward/domain/text.hpp>

namespace certsteward::domain {
namespace {

using SP = std::pair<LdapSecurity, std::string_view>;
constexpr auto kSecurityNames = makeEnumNames<LdapSecurity>(SP{LdapSecurity::none, "none"},
                                                            SP{LdapSecurity::starttls, "starttls"},
                                                            SP{LdapSecurity::ldaps, "ldaps"});

Status bad(const std::string& why) {
  return Status(fieldError(why));
}

bool isAttributeName(std::string_view name) {
  if (name.empty() || name.size() > 100) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == ';' || c == '.';
  });
}

// A filter as RFC 4515 writes it: one parenthesised expression, parentheses balanced.
bool isFilter(std::string_view f) {
  if (f.size() < 3 || f.front() != '(' || f.back() != ')') return false;
  int depth = 0;
  for (std::size_t i = 0; i < f.size(); ++i) {
    if (f[i] == '(') ++depth;
    if (f[i] == ')' && --depth < 0) return false;
    if (depth == 0 && i + 1 != f.size()) return false;  // a second expression after the first
    if (f[i] == '\0' || f[i] == '\n' || f[i] == '\r') return false;
  }
  return depth == 0;
}

// "CN=Admins, OU=Groups ,DC=x" and "cn=admins,ou=groups,dc=x" are the same group.
std::string normalDn(std::string_view dn) {
  std::string out;
  out.reserve(dn.size());
  for (std::size_t i = 0; i < dn.size(); ++i) {
    const char c = dn[i];
    if (c == ' ' && (out.empty() || out.back() == ',' || out.back() == '=')) continue;
    if ((c == ',' || c == '=') && !out.empty()) {
      while (!out.empty() && out.back() == ' ')
        out.pop_back();
    }
    out.push_back(asciiLower(c));
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  return out;
}

}  // namespace

std::string_view nameOf(LdapSecurity s) noexcept {
  return kSecurityNames.name(s);
}
std::optional<LdapSecurity> parseLdapSecurity(std::string_view text) noexcept {
  return kSecurityNames.parse(text);
}

Status checkLdapSettings(const LdapSettings& s) {
  if (s.host.empty() || s.host.size() > 253) return bad("host must be 1 to 253 characters");
  if (s.host.find_first_of(" /\\@?#") != std::string::npos) {
    return bad("host must be a host name or address, without a scheme, path or spaces");
  }
  if (s.port < 1 || s.port > 65535) return bad("port must be an integer from 1 to 65535");
  if (s.security == LdapSecurity::none && !isLoopback(s.host)) {
    return bad(
        "security none sends passwords in clear text and is allowed only for a loopback host; "
        "use starttls or ldaps");
  }
  if (!s.ca_bundle.empty()) {
    if (const auto problem = pemCertificatesProblem(s.ca_bundle); !problem.empty()) {
      return bad("ca_bundle " + problem);
    }
  }
  if (s.base_dn.empty() || s.base_dn.size() > 1000) {
    return bad("base_dn must be 1 to 1000 characters");
  }
  if (s.bind_dn.size() > 1000) return bad("bind_dn must be at most 1000 characters");
  if (s.user_filter.size() > 1000 || !isFilter(s.user_filter) ||
      s.user_filter.find("{username}") == std::string::npos) {
    return bad(
        "user_filter must be one parenthesised LDAP filter of at most 1000 characters containing "
        "{username}, e.g. (&(objectClass=person)(uid={username}))");
  }
  if (!isAttributeName(s.username_attribute)) {
    return bad("username_attribute must be an attribute name such as uid or sAMAccountName");
  }
  if (!s.email_attribute.empty() && !isAttributeName(s.email_attribute)) {
    return bad("email_attribute must be an attribute name such as mail, or empty");
  }
  if (s.group_base_dn.size() > 1000) return bad("group_base_dn must be at most 1000 characters");
  if (s.group_filter.size() > 1000 || !isFilter(s.group_filter)) {
    return bad(
        "group_filter must be one parenthesised LDAP filter of at most 1000 characters, e.g. "
        "(objectClass=groupOfNames)");
  }
  if (!isAttributeName(s.member_attribute)) {
    return bad("member_attribute must be an attribute name such as member or uniqueMember");
  }
  if (s.group_mappings.size() > 100) return bad("group_mappings must have at most 100 entries");
  for (const auto& m : s.group_mappings) {
    if (m.group_dn.empty() || m.group_dn.size() > 1000 ||
        m.group_dn.find('=') == std::string::npos) {
      return bad("group_mappings[].group_dn must be a group's distinguished name (cn=...,dc=...)");
    }
  }
  if (!s.group_mappings.empty() && s.group_base_dn.empty()) {
    return bad("group_base_dn is required when group_mappings are set (groups are read under it)");
  }
  if (s.default_org_role == OrgRole::owner) {
    return bad("default_org_role cannot be owner; map a group to owner instead");
  }
  if (s.connect_timeout_seconds < 1 || s.connect_timeout_seconds > 60) {
    return bad("connect_timeout_seconds must be an integer from 1 to 60");
  }
  if (s.operation_timeout_seconds < 1 || s.operation_timeout_seconds > 60) {
    return bad("operation_timeout_seconds must be an integer from 1 to 60");
  }
  return {};
}

Status applyLdapUrl(std::string_view url, LdapSettings& s) {
  const bool secure = url.starts_with("ldaps://");
  if (!secure && !url.starts_with("ldap://")) {
    return bad("url must be ldap://host[:port] or ldaps://host[:port]");
  }
  std::string_view rest = url.substr(secure ? 8 : 7);
  if (rest.ends_with("/")) rest.remove_suffix(1);
  if (rest.empty() || rest.find_first_of("/?#@ ") != std::string_view::npos) {
    return bad("url must be ldap://host[:port] or ldaps://host[:port], without a path");
  }
  const bool bracketed = rest.starts_with("[");
  const bool hasPort = bracketed ? rest.find("]:") != std::string_view::npos
                                 : std::count(rest.begin(), rest.end(), ':') == 1;
  if (hasPort) {
    auto split = splitHostPort(rest);
    if (!split) return bad("url has a port that is not an integer from 1 to 65535");
    s.host = split->first;
    s.port = split->second;
  } else {
    s.host = std::string(bracketed && rest.ends_with("]") ? rest.substr(1, rest.size() - 2) : rest);
    s.port = secure ? 636 : 389;
  }
  if (secure) {
    s.security = LdapSecurity::ldaps;
  } else if (s.security == LdapSecurity::ldaps) {
    s.security = LdapSecurity::starttls;
  }
  return {};
}

std::optional<OrgRole> mapDirectoryRole(const LdapSettings& settings,
                                        const std::vector<std::string>& groups) {
  std::optional<OrgRole> best;
  for (const auto& group : groups) {
    const std::string dn = normalDn(group);
    for (const auto& m : settings.group_mappings) {
      if (normalDn(m.group_dn) == dn && (!best || atLeast(m.org_role, *best))) best = m.org_role;
    }
  }
  return best ? best : settings.default_org_role;
}

}  // namespace certsteward::domain
