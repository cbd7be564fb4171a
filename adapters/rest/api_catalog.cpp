// GET /catalog: what this server offers, described for the UI's forms and hints.
#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/rest/json_io.hpp>

namespace certsteward::adapters::rest {
namespace {

json::array strings(const std::vector<std::string_view>& values) {
  json::array out;
  for (const auto v : values)
    out.emplace_back(json::string(v));
  return out;
}

// A field as docs/api.md ("Catalog") describes it: what is absent is not said.
json::object fieldJson(const domain::FieldSpec& f) {
  json::object o{{"name", json::string(f.name)},
                 {"label", json::string(f.label)},
                 {"type", json::string(nameOf(f.type))},
                 {"required", f.required},
                 {"in", f.place == domain::FieldPlace::settings ? "settings" : "body"}};
  if (!f.default_value.empty()) o["default"] = json::string(f.default_value);
  if (!f.help.empty()) o["help"] = json::string(f.help);
  if (!f.example.empty()) o["example"] = json::string(f.example);
  if (f.scope != domain::FieldScope::none) o["scope"] = json::string(nameOf(f.scope));
  if (f.type == domain::FieldType::enumeration) o["values"] = strings(f.values);
  if (!f.values_from.empty()) o["values_from"] = json::string(f.values_from);
  if (f.type == domain::FieldType::integer) {
    o["min"] = f.min;
    o["max"] = f.max;
  }
  if (f.max_length != 0) o["max_length"] = f.max_length;
  if (f.type == domain::FieldType::url) o["loopback_http"] = f.loopback_http;
  if (f.type == domain::FieldType::host_port || f.type == domain::FieldType::host_port_list) {
    o["port_optional"] = f.port_optional;
  }
  if (f.multiline) o["multiline"] = true;
  if (f.type == domain::FieldType::credential) o["credential_kinds"] = strings(f.credential_kinds);
  return o;
}

json::array kindsJson(const std::vector<services::KindEntry>& kinds) {
  json::array out;
  for (const auto& k : kinds) {
    json::array fields;
    for (const auto& f : k.spec.fields)
      fields.push_back(fieldJson(f));
    json::object o{{"name", json::string(k.spec.name)},
                   {"label", json::string(k.spec.label)},
                   {"summary", json::string(k.spec.summary)},
                   {"available", k.available},
                   {"fields", std::move(fields)}};
    if (!k.note.empty()) o["note"] = k.note;
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace

void Api::addCatalogRoutes() {
  router_.add("GET", "/api/v1/catalog", [this](const Call& c) {
    auto catalog = s_.catalog.describe(c.who());
    if (!catalog) return errorResponse(catalog.error());
    json::array kinds;
    for (const auto& k : catalog->event_kinds) {
      kinds.push_back(json::object{
          {"name", std::string(nameOf(k.kind))}, {"summary", k.summary}, {"failure", k.failure}});
    }
    json::array actions;
    for (const auto& a : catalog->audit_actions) {
      actions.push_back(json::object{{"name", json::string(a.action)},
                                     {"resource_type", json::string(a.resource_type)},
                                     {"summary", json::string(a.summary)}});
    }
    return jsonResponse(200,
                        json::object{
                            {"event_kinds", std::move(kinds)},
                            {"dns_providers", kindsJson(catalog->dns_providers)},
                            {"distribution_modules", kindsJson(catalog->distribution_modules)},
                            {"notification_channels", kindsJson(catalog->notification_channels)},
                            {"credential_kinds", kindsJson(catalog->credential_kinds)},
                            {"audit_actions", std::move(actions)},
                        });
  });
}

}  // namespace certsteward::adapters::rest
