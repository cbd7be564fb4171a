// Org-scoped settings: CA providers, LDAP settings (LdapSettingsService: owner; the bind
// password sealed at rest and never returned).
#include "adapters/rest/api.hpp"
#include "adapters/rest/json_io.hpp"

namespace certsteward::adapters::rest {
namespace {

json::object ldapSettingsJson(const domain::LdapSettingsView& v) {
  const auto& s = v.settings;
  return {{"host", s.host},
          {"port", s.port},
          {"bind_dn", s.bind_dn},
          {"base_dn", s.base_dn},
          {"user_filter", s.user_filter},
          {"use_tls", s.use_tls},
          {"bind_password_configured", v.bind_password_configured}};
}

}  // namespace

void Api::addSettingsRoutes() {
  router_.add("GET", "/api/v1/ca-providers", [this](const Call& c) {
    if (auto s = s_.access.check(c.who(), domain::Action::read_license); !s)
      return errorResponse(s.error());
    // What this instance really has: the issuer adapter it was built with, and the DNS
    // providers its configuration allows (DNS-01 needs at least one).
    const auto info = s_.issuer.info();
    json::array providers;
    if (!info.issuer_type.empty()) {
      json::array dns;
      bool anyDns = false;
      for (const auto& kind : s_.dnsProviders.kinds()) {
        json::object k{{"name", kind.name}, {"available", kind.available}};
        if (!kind.note.empty()) k["note"] = kind.note;
        dns.push_back(std::move(k));
        anyDns = anyDns || kind.available;
      }
      json::array challenges;
      for (const auto& ch : info.challenges)
        challenges.push_back(json::value(ch));
      json::array features;
      for (const auto& f : info.features)
        features.push_back(json::value(f));
      providers.push_back(json::object{{"issuer_type", info.issuer_type},
                                       {"name", info.name},
                                       {"challenges", challenges},
                                       {"features", features},
                                       {"dns_providers", dns},
                                       {"available", anyDns}});
    }
    const auto total = static_cast<std::int64_t>(providers.size());
    return jsonResponse(
        200, json::object{
                 {"ca_providers", providers}, {"total", total}, {"page", 1}, {"page_size", 20}});
  });

  router_.add("GET", "/api/v1/settings/ldap", [this](const Call& c) {
    auto view = s_.ldapSettings.get(c.who());
    if (!view) return errorResponse(view.error());
    return jsonResponse(200, ldapSettingsJson(*view));
  });

  router_.add("PUT", "/api/v1/settings/ldap", [this](const Call& c) {
    if (auto s = s_.access.check(c.who(), domain::Action::manage_settings); !s)
      return errorResponse(s.error());
    const auto body = parseBody(c.request);
    domain::LdapSettings draft;
    draft.host = requiredString(body, "host", 253);
    draft.bind_dn = optionalString(body, "bind_dn", 1000).value_or("");
    draft.base_dn = requiredString(body, "base_dn", 1000);
    draft.user_filter = optionalString(body, "user_filter", 1000).value_or(draft.user_filter);
    draft.use_tls = optionalBool(body, "use_tls").value_or(true);
    const auto* port = body.if_contains("port");
    if (port != nullptr && !port->is_null()) {
      if (!port->is_int64() || port->as_int64() < 1 || port->as_int64() > 65535) {
        throw BadRequest("port must be an integer from 1 to 65535");
      }
      draft.port = static_cast<int>(port->as_int64());
    }
    auto saved = s_.ldapSettings.put(c.who(), c.context, std::move(draft),
                                     optionalString(body, "bind_password", 1000));
    if (!saved) return errorResponse(saved.error());
    return jsonResponse(200, ldapSettingsJson(*saved));
  });

  router_.add("POST", "/api/v1/settings/ldap/test", [this](const Call& c) {
    if (auto s = s_.access.check(c.who(), domain::Action::manage_settings); !s)
      return errorResponse(s.error());
    return errorResponse(
        503, "the LDAP connection test is not available: no directory adapter is configured yet");
  });
}

}  // namespace certsteward::adapters::rest
