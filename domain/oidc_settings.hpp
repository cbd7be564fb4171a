// Single sign-on through an OpenID Connect provider (org-wide, owner only): which provider, this
// server's client there, which claims name the person and their groups, and which org role each
// group grants. The client secret is kept sealed and never shown.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/user.hpp>

namespace certsteward::domain {

// Members of `group` (a value of the groups claim) get `org_role`; the highest role wins.
struct OidcGroupMapping {
  std::string group;
  OrgRole org_role = OrgRole::viewer;
};

struct OidcSettings {
  bool enabled = false;
  std::string display_name = "single sign-on";  // "Sign in with <display_name>"
  std::string issuer;                           // discovery at <issuer>/.well-known/...
  std::string client_id;
  std::string client_secret_sealed;  // empty: a public client (PKCE only)
  // This server's callback as the provider knows it: https://<host>/api/v1/auth/oidc/callback.
  std::string redirect_uri;
  std::vector<std::string> scopes = {"openid", "profile", "email"};
  std::string username_claim = "preferred_username";
  std::string groups_claim = "groups";  // "": groups are not read
  std::vector<OidcGroupMapping> group_mappings;
  std::optional<OrgRole> default_org_role = OrgRole::viewer;  // nullopt: deny without a group
  std::string ca_bundle;  // PEM CAs of the provider's TLS certificate; "": the system's
};

// Every rule, the first one broken as invalid_argument (kInvalidField) naming the field:
// issuer and redirect_uri https URLs (http only for a loopback host), redirect_uri ending in
// /api/v1/auth/oidc/callback, client_id 1-200 characters, scopes 1-20 tokens including openid,
// claims 1-100 characters (groups_claim may be empty), at most 100 mappings with a group each,
// default_org_role not owner, display_name 1-60 characters, ca_bundle PEM.
Status checkOidcSettings(const OidcSettings& settings);

// The org role that `groups` grant: the highest mapped role, else default_org_role; nullopt when
// the person is to be refused. Groups compare exactly.
std::optional<OrgRole> mapOidcRole(const OidcSettings& settings,
                                   const std::vector<std::string>& groups);

}  // namespace certsteward::domain
