// The project-scoped configuration resources, each through one generic set of five routes:
// /projects/<project_id>/<path>[/<id>] with GET (list, one), POST, PATCH, DELETE. Secrets are
// accepted in requests, sealed by the service, and never shown: responses say only whether one
// is configured.
#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/rest/json_io.hpp>
#include <certsteward/adapters/rest/resources_json.hpp>

#include <algorithm>

namespace certsteward::adapters::rest {
namespace {

template <class T>
struct ResourceMapping {
  std::string path;      // "dns-credentials"
  std::string singular;  // "dns_credential"
  std::string plural;    // "dns_credentials"
  std::function<json::object(const T&)> toJson;
  // Applies body fields to the entity (required ones when `creating`); returns the plaintext
  // secret when the body carries one.
  std::function<std::optional<std::string>(const json::object&, T&, bool creating)> fromJson;
};

// An object of strings; the settings named in `listKeys` may also be arrays of strings (an
// email channel's "to"), kept as one comma-separated value.
std::map<std::string, std::string> stringMap(
    const json::object& o, const char* key, std::initializer_list<std::string_view> listKeys = {}) {
  std::map<std::string, std::string> out;
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_object() || v->as_object().size() > 50) {
    throw BadRequest(std::string(key) + " must be an object of at most 50 strings");
  }
  for (const auto& [k, item] : v->as_object()) {
    const bool list =
        std::find(listKeys.begin(), listKeys.end(), std::string_view(k)) != listKeys.end();
    if (list && item.is_array() && item.as_array().size() <= 100) {
      std::string joined;
      for (const auto& element : item.as_array()) {
        if (!element.is_string() || element.as_string().size() > 1024) {
          throw BadRequest(std::string(key) + "." + std::string(k) + " must list strings");
        }
        joined += (joined.empty() ? "" : ", ") + std::string(element.as_string());
      }
      out[std::string(k)] = std::move(joined);
      continue;
    }
    if (!item.is_string() || k.size() > 100 || item.as_string().size() > 16 * 1024) {
      throw BadRequest(std::string(key) + " values must be strings of at most 16 KiB");
    }
    out[std::string(k)] = std::string(item.as_string());
  }
  return out;
}

std::vector<std::string> stringList(const json::object& o, const char* key) {
  std::vector<std::string> out;
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_array() || v->as_array().size() > 100) {
    throw BadRequest(std::string(key) + " must be an array of at most 100 strings");
  }
  for (const auto& item : v->as_array()) {
    if (!item.is_string() || item.as_string().size() > 200) {
      throw BadRequest(std::string(key) + " must be an array of strings");
    }
    out.emplace_back(item.as_string());
  }
  return out;
}

json::object stringMapJson(const std::map<std::string, std::string>& m) {
  json::object o;
  for (const auto& [k, v] : m)
    o[k] = v;
  return o;
}

template <class T>
void setIf(const json::object& o, const char* key, T& field, bool required,
           std::size_t max = 1000) {
  auto v = optionalString(o, key, max);
  if (!v && required) throw BadRequest(std::string(key) + " is required");
  if (v) field = *v;
}

json::value optionalTimestamp(const std::optional<domain::Timestamp>& t) {
  return timestamp(t);
}

template <class T>
void addResource(Router& router, services::ResourceService<T>& service, ResourceMapping<T> m) {
  const std::string base = "/api/v1/projects/:project_id/" + m.path;
  router.add("GET", base, [&service, m](const Call& c) {
    auto page = service.list(c.who(), c.param("project_id"), pageFrom(c.request));
    if (!page) return errorResponse(page.error());
    return pageResponse(m.plural.c_str(), *page, m.toJson);
  });
  router.add("POST", base, [&service, m](const Call& c) {
    const auto body = parseBody(c.request);
    T draft{};
    const auto secret = m.fromJson(body, draft, true);
    auto created = service.create(c.who(), c.context, c.param("project_id"), draft, secret);
    if (!created) return errorResponse(created.error());
    return jsonResponse(201, json::object{{m.singular, m.toJson(*created)}});
  });
  router.add("GET", base + "/:id", [&service, m](const Call& c) {
    auto entity = service.get(c.who(), c.param("project_id"), c.param("id"));
    if (!entity) return errorResponse(entity.error());
    return jsonResponse(200, json::object{{m.singular, m.toJson(*entity)}});
  });
  router.add("PATCH", base + "/:id", [&service, m](const Call& c) {
    const auto body = parseBody(c.request);
    std::optional<std::string> secret;
    T scratch{};
    secret = m.fromJson(body, scratch, false);  // type-check the body before touching anything
    auto updated = service.update(
        c.who(), c.context, c.param("project_id"), c.param("id"),
        [&](T& entity) { (void)m.fromJson(body, entity, false); }, secret);
    if (!updated) return errorResponse(updated.error());
    return jsonResponse(200, json::object{{m.singular, m.toJson(*updated)}});
  });
  router.add("DELETE", base + "/:id", [&service](const Call& c) {
    if (auto s = service.remove(c.who(), c.context, c.param("project_id"), c.param("id")); !s) {
      return errorResponse(s.error());
    }
    HttpResponse r;
    r.status = 204;
    return r;
  });
}

json::object base(const auto& e) {
  return {{"id", e.id},
          {"project_id", e.project_id},
          {"created_at", timestamp(e.created_at)},
          {"updated_at", timestamp(e.updated_at)}};
}

}  // namespace

json::object acmeAccountJson(const domain::AcmeAccount& a) {
  auto o = base(a);
  o["name"] = a.name;
  o["ca_provider_id"] = a.ca_provider_id;
  o["directory_url"] = a.directory_url;
  o["email"] = a.email;
  o["status"] = a.status;
  o["is_registered"] = a.is_registered;
  o["eab_kid"] = a.eab_kid;
  o["eab_configured"] = !a.eab_hmac_sealed.empty();
  o["last_validated_at"] = optionalTimestamp(a.last_validated_at);
  return o;
}

json::object dnsCredentialJson(const domain::DnsCredential& d) {
  auto o = base(d);
  o["name"] = d.name;
  o["provider"] = d.provider;
  o["settings"] = stringMapJson(d.settings);
  o["active"] = d.active;
  o["secret_configured"] = !d.secret_sealed.empty();
  return o;
}

json::object zoneJson(const domain::Zone& z) {
  auto o = base(z);
  o["domain"] = z.domain;
  o["dns_credential_id"] = z.dns_credential_id;
  return o;
}

void Api::addResourceRoutes() {
  auto& r = s_.resources;

  addResource<domain::AcmeAccount>(
      router_, r.acmeAccounts,
      {"acme-accounts", "acme_account", "acme_accounts", acmeAccountJson,
       [](const json::object& b, domain::AcmeAccount& a, bool creating) {
         setIf(b, "name", a.name, creating, 200);
         // One of the two: the provider, or its directory URL (a provider is made for a URL
         // that none has).
         setIf(b, "ca_provider_id", a.ca_provider_id, false, 64);
         setIf(b, "directory_url", a.directory_url, false, 2000);
         if (b.contains("ca_provider_id") && !b.contains("directory_url")) a.directory_url.clear();
         if (b.contains("directory_url") && !b.contains("ca_provider_id")) a.ca_provider_id.clear();
         setIf(b, "email", a.email, false, 320);
         setIf(b, "eab_kid", a.eab_kid, false, 500);
         return optionalString(b, "eab_hmac_key", 1000);
       }});

  addResource<domain::DnsCredential>(
      router_, r.dnsCredentials,
      {"dns-credentials", "dns_credential", "dns_credentials", dnsCredentialJson,
       [](const json::object& b, domain::DnsCredential& d, bool creating) {
         setIf(b, "name", d.name, creating, 200);
         setIf(b, "provider", d.provider, creating, 40);
         if (b.contains("settings")) d.settings = stringMap(b, "settings");
         if (auto active = optionalBool(b, "active")) d.active = *active;
         if (creating) d.active = optionalBool(b, "active").value_or(true);
         return optionalString(b, "secret", 4000);
       }});

  addResource<domain::Zone>(router_, r.zones,
                            {"zones", "zone", "zones", zoneJson,
                             [](const json::object& b, domain::Zone& z, bool creating) {
                               setIf(b, "domain", z.domain, creating, 253);
                               setIf(b, "dns_credential_id", z.dns_credential_id, creating, 64);
                               return std::optional<std::string>{};
                             }});

  // An acme-dns account made on its server and kept as a DNS credential with its zone.
  router_.add(
      "POST", "/api/v1/projects/:project_id/dns-credentials/acme-dns-registrations",
      [this](const Call& c) {
        const auto body = parseBody(c.request);
        for (const auto& [key, value] : body) {
          (void)value;
          if (key != "name" && key != "settings") {
            throw BadRequest("unknown field: " + std::string(key).substr(0, 40));
          }
        }
        domain::DnsCredential draft;
        draft.name = requiredString(body, "name", 200);
        draft.provider = "acmedns";
        draft.settings = stringMap(body, "settings");
        auto made =
            s_.dnsAccounts.registerAccount(c.who(), c.context, c.param("project_id"), draft);
        if (!made) return errorResponse(made.error());
        return jsonResponse(201, json::object{
                                     {"dns_credential", dnsCredentialJson(made->credential)},
                                     {"zone", zoneJson(made->zone)},
                                     {"cname_target", made->zone.domain},
                                 });
      });

  addResource<domain::Credential>(
      router_, r.credentials,
      {"credentials", "credential", "credentials",
       [](const domain::Credential& cr) {
         auto o = base(cr);
         o["name"] = cr.name;
         o["kind"] = cr.kind;
         o["username"] = cr.username;
         o["secret_configured"] = !cr.secret_sealed.empty();
         return o;
       },
       [](const json::object& b, domain::Credential& cr, bool creating) {
         setIf(b, "name", cr.name, creating, 200);
         setIf(b, "kind", cr.kind, creating, 40);
         setIf(b, "username", cr.username, false, 200);
         return optionalString(b, "secret", 16000);
       }});

  addResource<domain::NotificationChannel>(
      router_, r.channels,
      {"notification-channels", "notification_channel", "notification_channels",
       [](const domain::NotificationChannel& ch) {
         auto o = base(ch);
         o["name"] = ch.name;
         o["kind"] = ch.kind;
         o["settings"] = stringMapJson(ch.settings);
         o["enabled"] = ch.enabled;
         o["secret_configured"] = !ch.secret_sealed.empty();
         return o;
       },
       [](const json::object& b, domain::NotificationChannel& ch, bool creating) {
         setIf(b, "name", ch.name, creating, 200);
         setIf(b, "kind", ch.kind, creating, 40);
         if (b.contains("settings")) ch.settings = stringMap(b, "settings", {"to"});
         if (auto enabled = optionalBool(b, "enabled")) ch.enabled = *enabled;
         if (creating) ch.enabled = optionalBool(b, "enabled").value_or(true);
         return optionalString(b, "secret", 4000);
       }});

  addResource<domain::ModuleConfig>(
      router_, r.modules,
      {"modules", "module", "modules",
       [](const domain::ModuleConfig& m) {
         auto o = base(m);
         o["name"] = m.name;
         o["module"] = m.module;
         o["settings"] = stringMapJson(m.settings);
         json::array targets;
         for (const auto& t : m.targets) {
           targets.push_back(json::object{
               {"name", t.name},
               {"settings", stringMapJson(t.settings)},
               {"credential_id",
                t.credential_id.empty() ? json::value(nullptr) : json::value(t.credential_id)}});
         }
         o["targets"] = targets;
         o["auto_rollback_on_failure"] = m.auto_rollback_on_failure;
         return o;
       },
       [](const json::object& b, domain::ModuleConfig& m, bool creating) {
         setIf(b, "name", m.name, creating, 200);
         setIf(b, "module", m.module, creating, 40);
         if (b.contains("settings")) m.settings = stringMap(b, "settings");
         if (const auto* t = b.if_contains("targets"); t != nullptr && !t->is_null()) {
           if (!t->is_array() || t->as_array().size() > 500) {
             throw BadRequest("targets must be an array of at most 500 objects");
           }
           m.targets.clear();
           for (const auto& item : t->as_array()) {
             if (!item.is_object()) throw BadRequest("each target must be an object");
             domain::DistributionTarget target;
             setIf(item.as_object(), "name", target.name, true, 200);
             target.settings = stringMap(item.as_object(), "settings");
             setIf(item.as_object(), "credential_id", target.credential_id, false, 64);
             m.targets.push_back(std::move(target));
           }
         }
         if (auto v = optionalBool(b, "auto_rollback_on_failure")) m.auto_rollback_on_failure = *v;
         return std::optional<std::string>{};
       }});

  addResource<domain::NotificationRule>(
      router_, r.rules,
      {"notification-rules", "notification_rule", "notification_rules",
       [](const domain::NotificationRule& rule) {
         auto o = base(rule);
         o["name"] = rule.name;
         json::array events;
         for (auto e : rule.events)
           events.push_back(json::value(std::string(nameOf(e))));
         o["events"] = events;
         json::array channels;
         for (const auto& id : rule.channel_ids)
           channels.push_back(json::value(id));
         o["channel_ids"] = channels;
         o["enabled"] = rule.enabled;
         o["certificate_pattern"] = rule.certificate_pattern;
         o["only_on_change"] = rule.only_on_change;
         json::array thresholds;
         for (int d : rule.thresholds_days)
           thresholds.push_back(d);
         o["thresholds_days"] = thresholds;
         o["mode"] = rule.mode;
         o["digest_time"] = rule.digest_time;
         o["last_digest_at"] = timestamp(rule.last_digest_at);
         return o;
       },
       [](const json::object& b, domain::NotificationRule& rule, bool creating) {
         setIf(b, "name", rule.name, creating, 200);
         if (b.contains("events") || creating) {
           rule.events.clear();
           for (const auto& name : stringList(b, "events")) {
             auto kind = domain::parseEventKind(name);
             if (!kind) throw BadRequest("unknown event: '" + name.substr(0, 40) + "'");
             rule.events.push_back(*kind);
           }
         }
         if (b.contains("channel_ids") || creating) rule.channel_ids = stringList(b, "channel_ids");
         if (auto enabled = optionalBool(b, "enabled")) rule.enabled = *enabled;
         setIf(b, "certificate_pattern", rule.certificate_pattern, false, 253);
         if (auto v = optionalBool(b, "only_on_change")) rule.only_on_change = *v;
         if (const auto* t = b.if_contains("thresholds_days"); t != nullptr && !t->is_null()) {
           if (!t->is_array() || t->as_array().size() > 10) {
             throw BadRequest("thresholds_days must be an array of at most 10 whole numbers");
           }
           rule.thresholds_days.clear();
           for (const auto& d : t->as_array()) {
             if (!d.is_int64() || d.as_int64() < -100000 || d.as_int64() > 100000) {
               throw BadRequest("thresholds_days must be an array of whole numbers");
             }
             rule.thresholds_days.push_back(static_cast<int>(d.as_int64()));
           }
         }
         setIf(b, "mode", rule.mode, false, 40);
         setIf(b, "digest_time", rule.digest_time, false, 5);
         if (creating) rule.enabled = optionalBool(b, "enabled").value_or(true);
         return std::optional<std::string>{};
       }});
}

}  // namespace certsteward::adapters::rest
