// /api/v1/projects and their members.
#include <algorithm>

#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/rest/json_io.hpp>

namespace certsteward::adapters::rest {
namespace {

json::object toJson(const domain::Project& p) {
  return {{"id", p.id},
          {"name", p.name},
          {"description", p.description},
          {"created_at", timestamp(p.created_at)},
          {"updated_at", timestamp(p.updated_at)}};
}

json::object toJson(const domain::Membership& m) {
  return {{"project_id", m.project_id},
          {"user_id", m.user_id},
          {"role", std::string(nameOf(m.role))},
          {"created_at", timestamp(m.created_at)}};
}

json::object toJson(const domain::ProjectIssuance& i) {
  json::array keys;
  for (auto k : i.policy.allowed_key_types)
    keys.push_back(json::value(nameOf(k)));
  return {
      {"defaults", json::object{{"acme_account_ids", json::value_from(i.defaults.acme_account_ids)},
                                {"profile", i.defaults.profile},
                                {"preferred_chain", i.defaults.preferred_chain}}},
      {"policy", json::object{{"allowed_key_types", std::move(keys)},
                              {"allowed_suffixes", json::value_from(i.policy.allowed_suffixes)},
                              {"allow_wildcards", i.policy.allow_wildcards},
                              {"allow_ip_addresses", i.policy.allow_ip_addresses},
                              {"max_lifetime_days", i.policy.max_lifetime_days},
                              {"allowed_ca_provider_ids",
                               json::value_from(i.policy.allowed_ca_provider_ids)}}}};
}

// The part of a PUT body named `key`: an object of known fields only (400 otherwise).
const json::object& section(const json::object& body, const char* key,
                            std::initializer_list<std::string_view> fields) {
  static const json::object empty;
  const auto* v = body.if_contains(key);
  if (v == nullptr || v->is_null()) return empty;
  if (!v->is_object()) throw BadRequest(std::string(key) + " must be an object");
  for (const auto& [name, value] : v->as_object()) {
    (void)value;
    if (std::find(fields.begin(), fields.end(), std::string_view(name)) == fields.end()) {
      throw BadRequest("unknown field: " + std::string(key) + "." +
                       std::string(name).substr(0, 40));
    }
  }
  return v->as_object();
}

std::vector<std::string> strings(const json::object& o, const char* key, std::size_t most,
                                 std::size_t longest) {
  std::vector<std::string> out;
  const auto* v = o.if_contains(key);
  if (v == nullptr || v->is_null()) return out;
  if (!v->is_array() || v->as_array().size() > most) {
    throw BadRequest(std::string(key) + " must be an array of at most " + std::to_string(most) +
                     " strings");
  }
  for (const auto& item : v->as_array()) {
    if (!item.is_string() || item.as_string().size() > longest) {
      throw BadRequest(std::string(key) + " must be an array of strings of at most " +
                       std::to_string(longest) + " characters");
    }
    out.emplace_back(item.as_string());
  }
  return out;
}

// PUT /issuance-settings: the whole settings; a field left out takes its default.
domain::ProjectIssuance issuanceFrom(const json::object& body) {
  for (const auto& [name, value] : body) {
    (void)value;
    if (name != "defaults" && name != "policy") {
      throw BadRequest("unknown field: " + std::string(name).substr(0, 40));
    }
  }
  domain::ProjectIssuance out;
  const auto& d = section(body, "defaults", {"acme_account_ids", "profile", "preferred_chain"});
  // Generous bounds here (malformed: 400); the rules (5 accounts, 100 suffixes, 50 providers)
  // are the domain's, answered 422 with the field.
  out.defaults.acme_account_ids = strings(d, "acme_account_ids", 100, 64);
  out.defaults.profile = optionalString(d, "profile", 64).value_or("");
  out.defaults.preferred_chain = optionalString(d, "preferred_chain", 200).value_or("");
  const auto& p = section(body, "policy",
                          {"allowed_key_types", "allowed_suffixes", "allow_wildcards",
                           "allow_ip_addresses", "max_lifetime_days", "allowed_ca_provider_ids"});
  for (const auto& name : strings(p, "allowed_key_types", 100, 20)) {
    auto key = domain::parseKeyType(name);
    if (!key) throw BadRequest("unknown value for allowed_key_types: '" + name + "'");
    out.policy.allowed_key_types.push_back(*key);
  }
  out.policy.allowed_suffixes = strings(p, "allowed_suffixes", 1000, 253);
  out.policy.allow_wildcards = optionalBool(p, "allow_wildcards").value_or(true);
  out.policy.allow_ip_addresses = optionalBool(p, "allow_ip_addresses").value_or(true);
  if (const auto* v = p.if_contains("max_lifetime_days"); v != nullptr && !v->is_null()) {
    if (!v->is_int64() || v->as_int64() < -1000000 || v->as_int64() > 1000000) {
      throw BadRequest("max_lifetime_days must be an integer (0 to 3650)");
    }
    out.policy.max_lifetime_days = static_cast<int>(v->as_int64());
  }
  out.policy.allowed_ca_provider_ids = strings(p, "allowed_ca_provider_ids", 500, 64);
  return out;
}

}  // namespace

void Api::addProjectRoutes() {
  // The project's issuance defaults and policy (docs/api.md, Issuance settings).
  router_.add("GET", "/api/v1/projects/:project_id/issuance-settings", [this](const Call& c) {
    auto issuance = s_.projects.issuance(c.who(), c.param("project_id"));
    if (!issuance) return errorResponse(issuance.error());
    return jsonResponse(200, json::object{{"issuance_settings", toJson(*issuance)}});
  });
  router_.add("PUT", "/api/v1/projects/:project_id/issuance-settings", [this](const Call& c) {
    // A project the caller cannot see is 404 whatever the body says.
    if (auto visible = s_.projects.issuance(c.who(), c.param("project_id")); !visible) {
      return errorResponse(visible.error());
    }
    const auto settings = issuanceFrom(parseBody(c.request));
    auto issuance = s_.projects.setIssuance(c.who(), c.context, c.param("project_id"), settings);
    if (!issuance) return errorResponse(issuance.error());
    return jsonResponse(200, json::object{{"issuance_settings", toJson(*issuance)}});
  });

  router_.add("GET", "/api/v1/projects", [this](const Call& c) {
    auto page = s_.projects.list(c.who(), pageFrom(c.request));
    if (!page) return errorResponse(page.error());
    return pageResponse("projects", *page, [](const domain::Project& p) { return toJson(p); });
  });

  router_.add("POST", "/api/v1/projects", [this](const Call& c) {
    const auto body = parseBody(c.request);
    auto project = s_.projects.create(c.who(), c.context, requiredString(body, "name", 1000),
                                      optionalString(body, "description", 5000).value_or(""));
    if (!project) return errorResponse(project.error());
    return jsonResponse(201, json::object{{"project", toJson(*project)}});
  });

  router_.add("GET", "/api/v1/projects/:project_id", [this](const Call& c) {
    auto project = s_.projects.get(c.who(), c.param("project_id"));
    if (!project) return errorResponse(project.error());
    return jsonResponse(200, json::object{{"project", toJson(*project)}});
  });

  router_.add("PATCH", "/api/v1/projects/:project_id", [this](const Call& c) {
    const auto body = parseBody(c.request);
    services::ProjectChanges changes{optionalString(body, "name", 1000),
                                     optionalString(body, "description", 5000)};
    auto project = s_.projects.update(c.who(), c.context, c.param("project_id"), changes);
    if (!project) return errorResponse(project.error());
    return jsonResponse(200, json::object{{"project", toJson(*project)}});
  });

  router_.add("DELETE", "/api/v1/projects/:project_id", [this](const Call& c) {
    if (auto s = s_.projects.remove(c.who(), c.context, c.param("project_id")); !s) {
      return errorResponse(s.error());
    }
    HttpResponse r;
    r.status = 204;
    return r;
  });

  router_.add("GET", "/api/v1/projects/:project_id/members", [this](const Call& c) {
    auto page = s_.projects.members(c.who(), c.param("project_id"), pageFrom(c.request));
    if (!page) return errorResponse(page.error());
    return pageResponse("members", *page, [](const domain::Membership& m) { return toJson(m); });
  });

  router_.add("PUT", "/api/v1/projects/:project_id/members/:user_id", [this](const Call& c) {
    const auto body = parseBody(c.request);
    auto role = optionalEnum<domain::ProjectRole>(body, "role", domain::parseProjectRole);
    if (!role) throw BadRequest("role is required (admin, operator or viewer)");
    auto member =
        s_.projects.putMember(c.who(), c.context, c.param("project_id"), c.param("user_id"), *role);
    if (!member) return errorResponse(member.error());
    return jsonResponse(200, json::object{{"member", toJson(*member)}});
  });

  router_.add("DELETE", "/api/v1/projects/:project_id/members/:user_id", [this](const Call& c) {
    if (auto s =
            s_.projects.removeMember(c.who(), c.context, c.param("project_id"), c.param("user_id"));
        !s) {
      return errorResponse(s.error());
    }
    HttpResponse r;
    r.status = 204;
    return r;
  });
}

}  // namespace certsteward::adapters::rest
