// OIDC settings rules and the group-to-role mapping.
#include <certsteward/domain/oidc_settings.hpp>

#include <algorithm>

#include <certsteward/domain/encoding.hpp>
#include <certsteward/domain/network_names.hpp>

namespace certsteward::domain {
namespace {

Status bad(const std::string& why) {
  return Status(fieldError(why));
}

bool isToken(const std::string& s) {
  return !s.empty() && s.size() <= 100 && std::all_of(s.begin(), s.end(), [](char c) {
    return c > 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
}

}  // namespace

Status checkOidcSettings(const OidcSettings& s) {
  if (s.display_name.empty() || s.display_name.size() > 60) {
    return bad("display_name must be 1 to 60 characters");
  }
  if (s.issuer.size() > 500) return bad("issuer must be at most 500 characters");
  if (auto problem = urlProblem(s.issuer, true); !problem.empty()) {
    return bad("issuer " + problem);
  }
  if (s.client_id.empty() || s.client_id.size() > 200 || !isToken(s.client_id)) {
    return bad("client_id must be 1 to 200 printable characters without spaces");
  }
  if (s.redirect_uri.size() > 500) return bad("redirect_uri must be at most 500 characters");
  if (auto problem = urlProblem(s.redirect_uri, true); !problem.empty()) {
    return bad("redirect_uri " + problem);
  }
  if (!s.redirect_uri.ends_with("/api/v1/auth/oidc/callback")) {
    return bad(
        "redirect_uri must be this server's callback as browsers reach it, ending in "
        "/api/v1/auth/oidc/callback");
  }
  if (s.scopes.empty() || s.scopes.size() > 20 ||
      std::find(s.scopes.begin(), s.scopes.end(), "openid") == s.scopes.end() ||
      !std::all_of(s.scopes.begin(), s.scopes.end(), isToken)) {
    return bad("scopes must be 1 to 20 scope names including openid");
  }
  if (!isToken(s.username_claim)) {
    return bad("username_claim must be a claim name such as preferred_username or email");
  }
  if (!s.groups_claim.empty() && !isToken(s.groups_claim)) {
    return bad("groups_claim must be a claim name such as groups, or empty");
  }
  if (s.group_mappings.size() > 100) return bad("group_mappings must have at most 100 entries");
  for (const auto& m : s.group_mappings) {
    if (m.group.empty() || m.group.size() > 500) {
      return bad("group_mappings[].group must be 1 to 500 characters");
    }
  }
  if (!s.group_mappings.empty() && s.groups_claim.empty()) {
    return bad("groups_claim is required when group_mappings are set");
  }
  if (s.default_org_role == OrgRole::owner) {
    return bad("default_org_role cannot be owner; map a group to owner instead");
  }
  if (!s.ca_bundle.empty()) {
    if (const auto problem = pemCertificatesProblem(s.ca_bundle); !problem.empty()) {
      return bad("ca_bundle " + problem);
    }
  }
  return {};
}

std::optional<OrgRole> mapOidcRole(const OidcSettings& settings,
                                   const std::vector<std::string>& groups) {
  std::optional<OrgRole> best;
  for (const auto& group : groups) {
    for (const auto& m : settings.group_mappings) {
      if (m.group == group && (!best || atLeast(m.org_role, *best))) best = m.org_role;
    }
  }
  return best ? best : settings.default_org_role;
}

}  // namespace certsteward::domain
