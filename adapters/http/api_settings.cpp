// Org-scoped settings: CA providers, LDAP settings (owner; the bind password sealed at rest and
// never returned).
#include "adapters/http/api.hpp"
#include "adapters/http/json_io.hpp"

namespace certsteward::adapters::http {

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
    return jsonResponse(200, json::object{{"ca_providers", providers},
                                          {"total", total},
                                          {"page", 1},
                                          {"page_size", 20}});
  });

  router_.add("GET", "/api/v1/settings/ldap", [this](const Call& c) {
    if (auto s = s_.access.check(c.who(), domain::Action::manage_settings); !s)
      return errorResponse(s.error());
    auto stored = s_.store.settings().get("ldap");
    if (!stored) return errorResponse(stored.error());
    json::object view{{"host", ""},
                      {"port", 389},
                      {"bind_dn", ""},
                      {"base_dn", ""},
                      {"user_filter", "(uid={username})"},
                      {"use_tls", true},
                      {"bind_password_configured", false}};
    if (*stored) {
      boost::system::error_code ec;
      auto v = json::parse((*stored)->value, ec);
      if (!ec && v.is_object()) {
        for (const auto& [k, val] : v.as_object()) {
          if (k == "bind_password_sealed") {
            view["bind_password_configured"] = val.is_string() && !val.as_string().empty();
          } else {
            view[k] = val;
          }
        }
      }
    }
    return jsonResponse(200, view);
  });

  router_.add("PUT", "/api/v1/settings/ldap", [this](const Call& c) {
    if (auto s = s_.access.check(c.who(), domain::Action::manage_settings); !s)
      return errorResponse(s.error());
    const auto body = parseBody(c.request);
    json::object stored{
        {"host", requiredString(body, "host", 253)},
        {"bind_dn", optionalString(body, "bind_dn", 1000).value_or("")},
        {"base_dn", requiredString(body, "base_dn", 1000)},
        {"user_filter", optionalString(body, "user_filter", 1000).value_or("(uid={username})")},
        {"use_tls", optionalBool(body, "use_tls").value_or(true)}};
    const auto* port = body.if_contains("port");
    if (port != nullptr && !port->is_null()) {
      if (!port->is_int64() || port->as_int64() < 1 || port->as_int64() > 65535) {
        throw BadRequest("port must be an integer from 1 to 65535");
      }
      stored["port"] = port->as_int64();
    } else {
      stored["port"] = 389;
    }
    // Keep the previous sealed password unless a new one is given.
    if (auto previous = s_.store.settings().get("ldap"); previous && *previous) {
      boost::system::error_code ec;
      auto v = json::parse((*previous)->value, ec);
      if (!ec && v.is_object() && v.as_object().contains("bind_password_sealed")) {
        stored["bind_password_sealed"] = v.as_object().at("bind_password_sealed");
      }
    }
    if (auto password = optionalString(body, "bind_password", 1000)) {
      auto sealed = s_.secrets.seal(*password);
      if (!sealed) return errorResponse(sealed.error());
      stored["bind_password_sealed"] = *sealed;
    }
    const domain::Setting setting{"ldap", json::serialize(stored), s_.clock.now()};
    if (auto s = s_.store.transactions().run([&]() -> domain::Status {
          if (auto put = s_.store.settings().put(setting); !put) return put;
          return s_.audit.record(c.principal, c.context, "settings.ldap.update", "settings",
                                 "ldap");
        });
        !s) {
      return errorResponse(s.error());
    }
    const bool configured = stored.contains("bind_password_sealed");
    stored.erase("bind_password_sealed");
    stored["bind_password_configured"] = configured;
    return jsonResponse(200, stored);
  });

  router_.add("POST", "/api/v1/settings/ldap/test", [this](const Call& c) {
    if (auto s = s_.access.check(c.who(), domain::Action::manage_settings); !s)
      return errorResponse(s.error());
    return errorResponse(
        503, "the LDAP connection test is not available: no directory adapter is configured yet");
  });
}

}  // namespace certsteward::adapters::http
