// Org-scoped settings: CA providers, LDAP settings (LdapSettingsService: owner; the bind
// password sealed at rest and never returned).
#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/rest/json_io.hpp>

#include <set>

namespace certsteward::adapters::rest {
namespace {

json::object ldapSettingsJson(const services::LdapSettingsView& v) {
  const auto& s = v.settings;
  json::array mappings;
  for (const auto& m : s.group_mappings) {
    mappings.push_back(
        json::object{{"group_dn", m.group_dn}, {"org_role", std::string(nameOf(m.org_role))}});
  }
  return {{"enabled", s.enabled},
          {"host", s.host},
          {"port", s.port},
          {"security", std::string(nameOf(s.security))},
          {"use_tls", s.security != domain::LdapSecurity::none},
          {"ca_bundle", s.ca_bundle},
          {"bind_dn", s.bind_dn},
          {"bind_password_configured", v.secret_configured},
          {"base_dn", s.base_dn},
          {"user_filter", s.user_filter},
          {"username_attribute", s.username_attribute},
          {"email_attribute", s.email_attribute},
          {"group_base_dn", s.group_base_dn},
          {"group_filter", s.group_filter},
          {"member_attribute", s.member_attribute},
          {"group_mappings", mappings},
          {"default_org_role", s.default_org_role
                                   ? json::value(std::string(nameOf(*s.default_org_role)))
                                   : json::value(nullptr)},
          {"deny_without_group", !s.default_org_role.has_value()},
          {"connect_timeout_seconds", s.connect_timeout_seconds},
          {"operation_timeout_seconds", s.operation_timeout_seconds}};
}

std::optional<int> optionalInt(const json::object& o, const char* key, int min, int max) {
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_int64() || v->as_int64() < min || v->as_int64() > max) {
    throw BadRequest(std::string(key) + " must be an integer from " + std::to_string(min) + " to " +
                     std::to_string(max));
  }
  return static_cast<int>(v->as_int64());
}

// default_org_role / deny_without_group, as the LDAP and OIDC settings both take them.
std::optional<domain::OrgRole> fallbackRole(const json::object& body,
                                            std::optional<domain::OrgRole> otherwise) {
  const bool deny = optionalBool(body, "deny_without_group").value_or(false);
  const auto* role = body.if_contains("default_org_role");
  const bool roleGiven = role != nullptr && !role->is_null();
  if (deny && roleGiven) {
    throw BadRequest("give either default_org_role or deny_without_group: true, not both");
  }
  if (deny) return std::nullopt;
  if (roleGiven)
    return optionalEnum<domain::OrgRole>(body, "default_org_role", domain::parseOrgRole);
  return otherwise;
}

// Unknown fields are refused, so a misspelt one is noticed.
void refuseUnknownFields(const json::object& body, const std::set<std::string, std::less<>>& known,
                         const char* what) {
  for (const auto& [key, value] : body) {
    if (!known.contains(key)) {
      throw BadRequest("unknown field " + std::string(key).substr(0, 60) + " in the " + what);
    }
  }
}

// The PUT body of the LDAP settings: omitted fields take their defaults; an omitted
// bind_password keeps the one saved.
domain::LdapSettings ldapSettingsFrom(const json::object& body) {
  static const std::set<std::string, std::less<>> known = {"enabled",
                                                           "url",
                                                           "host",
                                                           "port",
                                                           "security",
                                                           "use_tls",
                                                           "ca_bundle",
                                                           "bind_dn",
                                                           "bind_password",
                                                           "bind_password_configured",
                                                           "base_dn",
                                                           "user_filter",
                                                           "username_attribute",
                                                           "email_attribute",
                                                           "group_base_dn",
                                                           "group_filter",
                                                           "member_attribute",
                                                           "group_mappings",
                                                           "default_org_role",
                                                           "deny_without_group",
                                                           "connect_timeout_seconds",
                                                           "operation_timeout_seconds"};
  refuseUnknownFields(body, known, "LDAP settings");
  domain::LdapSettings d;
  d.enabled = optionalBool(body, "enabled").value_or(true);
  if (auto tls = optionalBool(body, "use_tls")) {  // the earlier form of security
    d.security = *tls ? domain::LdapSecurity::starttls : domain::LdapSecurity::none;
  }
  if (auto security =
          optionalEnum<domain::LdapSecurity>(body, "security", domain::parseLdapSecurity)) {
    d.security = *security;
  }
  if (auto url = optionalString(body, "url", 300)) {
    if (body.contains("host") || body.contains("port")) {
      throw BadRequest("give either url or host and port, not both");
    }
    if (auto s = domain::applyLdapUrl(*url, d); !s) throw BadRequest(s.error().message);
  } else {
    d.host = requiredString(body, "host", 253);
    const bool ldaps = d.security == domain::LdapSecurity::ldaps;
    d.port = optionalInt(body, "port", 1, 65535).value_or(ldaps ? 636 : 389);
  }
  d.ca_bundle = optionalString(body, "ca_bundle", 65536).value_or("");
  d.bind_dn = optionalString(body, "bind_dn", 1000).value_or("");
  d.base_dn = requiredString(body, "base_dn", 1000);
  d.user_filter = optionalString(body, "user_filter", 1000).value_or(d.user_filter);
  d.username_attribute =
      optionalString(body, "username_attribute", 100).value_or(d.username_attribute);
  d.email_attribute = optionalString(body, "email_attribute", 100).value_or(d.email_attribute);
  d.group_base_dn = optionalString(body, "group_base_dn", 1000).value_or("");
  d.group_filter = optionalString(body, "group_filter", 1000).value_or(d.group_filter);
  d.member_attribute = optionalString(body, "member_attribute", 100).value_or(d.member_attribute);
  if (const auto* list = body.if_contains("group_mappings"); list != nullptr && !list->is_null()) {
    if (!list->is_array() || list->as_array().size() > 100) {
      throw BadRequest("group_mappings must be an array of at most 100 {group_dn, org_role}");
    }
    for (const auto& item : list->as_array()) {
      if (!item.is_object()) throw BadRequest("group_mappings entries must be objects");
      const auto& o = item.as_object();
      domain::LdapGroupMapping m;
      m.group_dn = requiredString(o, "group_dn", 1000);
      auto role = optionalEnum<domain::OrgRole>(o, "org_role", domain::parseOrgRole);
      if (!role) throw BadRequest("group_mappings entries need org_role");
      m.org_role = *role;
      d.group_mappings.push_back(std::move(m));
    }
  }
  d.default_org_role = fallbackRole(body, d.default_org_role);
  d.connect_timeout_seconds =
      optionalInt(body, "connect_timeout_seconds", 1, 60).value_or(d.connect_timeout_seconds);
  d.operation_timeout_seconds =
      optionalInt(body, "operation_timeout_seconds", 1, 60).value_or(d.operation_timeout_seconds);
  return d;
}

json::object oidcSettingsJson(const services::OidcSettingsView& v) {
  const auto& s = v.settings;
  json::array mappings;
  for (const auto& m : s.group_mappings) {
    mappings.push_back(
        json::object{{"group", m.group}, {"org_role", std::string(nameOf(m.org_role))}});
  }
  json::array scopes;
  for (const auto& scope : s.scopes)
    scopes.push_back(json::value(scope));
  return {{"enabled", s.enabled},
          {"display_name", s.display_name},
          {"issuer", s.issuer},
          {"client_id", s.client_id},
          {"client_secret_configured", v.secret_configured},
          {"redirect_uri", s.redirect_uri},
          {"scopes", scopes},
          {"username_claim", s.username_claim},
          {"groups_claim", s.groups_claim},
          {"group_mappings", mappings},
          {"default_org_role", s.default_org_role
                                   ? json::value(std::string(nameOf(*s.default_org_role)))
                                   : json::value(nullptr)},
          {"deny_without_group", !s.default_org_role.has_value()},
          {"ca_bundle", s.ca_bundle}};
}

// The PUT body of the OIDC settings: omitted fields take their defaults; an omitted
// client_secret keeps the saved one ("" removes it).
domain::OidcSettings oidcSettingsFrom(const json::object& body) {
  refuseUnknownFields(
      body,
      {"enabled", "display_name", "issuer", "client_id", "client_secret",
       "client_secret_configured", "redirect_uri", "scopes", "username_claim", "groups_claim",
       "group_mappings", "default_org_role", "deny_without_group", "ca_bundle"},
      "OIDC settings");
  domain::OidcSettings d;
  d.enabled = optionalBool(body, "enabled").value_or(false);
  d.display_name = optionalString(body, "display_name", 60).value_or(d.display_name);
  d.issuer = requiredString(body, "issuer", 500);
  d.client_id = requiredString(body, "client_id", 200);
  d.redirect_uri = requiredString(body, "redirect_uri", 500);
  if (const auto* list = body.if_contains("scopes"); list != nullptr && !list->is_null()) {
    if (!list->is_array() || list->as_array().size() > 20) {
      throw BadRequest("scopes must be an array of at most 20 scope names");
    }
    d.scopes.clear();
    for (const auto& scope : list->as_array()) {
      if (!scope.is_string() || scope.as_string().size() > 100) {
        throw BadRequest("scopes must be strings of at most 100 characters");
      }
      d.scopes.emplace_back(scope.as_string());
    }
  }
  d.username_claim = optionalString(body, "username_claim", 100).value_or(d.username_claim);
  d.groups_claim = optionalString(body, "groups_claim", 100).value_or(d.groups_claim);
  if (const auto* list = body.if_contains("group_mappings"); list != nullptr && !list->is_null()) {
    if (!list->is_array() || list->as_array().size() > 100) {
      throw BadRequest("group_mappings must be an array of at most 100 {group, org_role}");
    }
    for (const auto& item : list->as_array()) {
      if (!item.is_object()) throw BadRequest("group_mappings entries must be objects");
      const auto& o = item.as_object();
      domain::OidcGroupMapping m;
      m.group = requiredString(o, "group", 500);
      auto role = optionalEnum<domain::OrgRole>(o, "org_role", domain::parseOrgRole);
      if (!role) throw BadRequest("group_mappings entries need org_role");
      m.org_role = *role;
      d.group_mappings.push_back(std::move(m));
    }
  }
  d.default_org_role = fallbackRole(body, d.default_org_role);
  d.ca_bundle = optionalString(body, "ca_bundle", 65536).value_or("");
  return d;
}

}  // namespace

void Api::addSettingsRoutes() {
  router_.add("GET", "/api/v1/settings/ldap", [this](const Call& c) {
    auto view = s_.ldapSettings.get(c.who());
    if (!view) return errorResponse(view.error());
    return jsonResponse(200, ldapSettingsJson(*view));
  });

  router_.add("PUT", "/api/v1/settings/ldap", [this](const Call& c) {
    // Who may change them is answered before the body is read: a viewer learns nothing of it.
    if (auto s = s_.ldapSettings.authorizeChange(c.who()); !s) return errorResponse(s.error());
    const auto body = parseBody(c.request);
    auto saved = s_.ldapSettings.put(c.who(), c.context, ldapSettingsFrom(body),
                                     optionalString(body, "bind_password", 1000));
    if (!saved) return errorResponse(saved.error());
    return jsonResponse(200, ldapSettingsJson(*saved));
  });

  router_.add("GET", "/api/v1/settings/oidc", [this](const Call& c) {
    auto view = s_.oidcSettings.get(c.who());
    if (!view) return errorResponse(view.error());
    return jsonResponse(200, oidcSettingsJson(*view));
  });

  router_.add("PUT", "/api/v1/settings/oidc", [this](const Call& c) {
    if (auto s = s_.oidcSettings.authorizeChange(c.who()); !s) return errorResponse(s.error());
    const auto body = parseBody(c.request);
    auto saved = s_.oidcSettings.put(c.who(), c.context, oidcSettingsFrom(body),
                                     optionalString(body, "client_secret", 1000));
    if (!saved) return errorResponse(saved.error());
    return jsonResponse(200, oidcSettingsJson(*saved));
  });

  router_.add("POST", "/api/v1/settings/ldap/test", [this](const Call& c) {
    if (auto s = s_.ldapSettings.authorizeChange(c.who()); !s) return errorResponse(s.error());
    const auto body = parseBody(c.request);
    std::optional<services::DirectoryCredentials> credentials;
    if (body.contains("username") || body.contains("password")) {
      credentials = services::DirectoryCredentials{requiredString(body, "username", 200),
                                                   requiredString(body, "password", 1000)};
    }
    auto steps = s_.directoryLogin.test(c.who(), c.context, credentials);
    if (!steps) return errorResponse(steps.error());
    json::array list;
    bool ok = !steps->empty();
    for (const auto& step : *steps) {
      list.push_back(json::object{{"step", step.step}, {"ok", step.ok}, {"message", step.message}});
      ok = ok && step.ok;
    }
    return jsonResponse(200, json::object{{"ok", ok}, {"steps", list}});
  });
}

}  // namespace certsteward::adapters::rest
