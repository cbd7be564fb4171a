// /ca-providers: the organisation's CA providers and the presets they can be made from.
#include <set>

#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/rest/json_io.hpp>

namespace certsteward::adapters::rest {
namespace {

json::object limitJson(const domain::QuotaLimit& limit) {
  return {
      {"max", limit.max},
      {"window_seconds", std::chrono::duration_cast<std::chrono::seconds>(limit.window).count()}};
}

json::object rateLimitsJson(const domain::CaRateLimits& limits) {
  return {{"certificates", limitJson(limits.certificates)},
          {"orders", limitJson(limits.orders)},
          {"failed_validations", limitJson(limits.failed_validations)}};
}

json::object providerJson(const services::CaProviderView& v) {
  const auto& p = v.provider;
  json::array dns;
  for (const auto& kind : v.dns_providers) {
    json::object k{{"name", kind.name}, {"available", kind.available}};
    if (!kind.note.empty()) k["note"] = kind.note;
    dns.push_back(std::move(k));
  }
  json::array profiles;
  for (const auto& profile : p.profiles)
    profiles.push_back(json::object{{"name", profile.name}, {"description", profile.description}});
  return {{"id", p.id},
          {"name", p.name},
          {"kind", p.kind},
          {"issuer_type", v.issuer.issuer_type.empty() ? p.kind : v.issuer.issuer_type},
          {"preset", p.preset},
          {"directory_url", p.directory_url},
          {"trust_bundle", p.trust_bundle},
          {"eab_required", p.eab_required},
          {"caa_identities", json::value_from(p.caa_identities)},
          {"rate_limits", rateLimitsJson(p.rate_limits)},
          {"profiles", profiles},
          {"enabled", p.enabled},
          {"directory_read_at", timestamp(p.directory_read_at)},
          {"directory_error", p.directory_error},
          {"challenges", json::value_from(v.issuer.challenges)},
          {"features", json::value_from(v.issuer.features)},
          {"dns_providers", dns},
          {"available", v.available},
          {"created_at", timestamp(p.created_at)},
          {"updated_at", timestamp(p.updated_at)}};
}

const std::set<std::string, std::less<>> kWritable{"name",         "preset",       "directory_url",
                                                   "trust_bundle", "eab_required", "caa_identities",
                                                   "rate_limits",  "enabled"};

void refuseUnknown(const json::object& body, bool creating) {
  for (const auto& [key, value] : body) {
    (void)value;
    if (!kWritable.contains(key) || (!creating && key == "preset")) {
      throw BadRequest("unknown field: " + std::string(key).substr(0, 40));
    }
  }
}

std::optional<std::vector<std::string>> optionalNames(const json::object& body, const char* key) {
  const auto* v = body.if_contains(key);
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_array() || v->as_array().size() > 20) {
    throw BadRequest(std::string(key) + " must be an array of at most 20 names");
  }
  std::vector<std::string> out;
  for (const auto& item : v->as_array()) {
    if (!item.is_string() || item.as_string().size() > 253) {
      throw BadRequest(std::string(key) + " must hold strings of at most 253 characters");
    }
    out.emplace_back(item.as_string());
  }
  return out;
}

// {"certificates": {"max", "window_seconds"}, ...}: what is given.
std::optional<services::CaRateLimitsChange> optionalLimits(const json::object& body) {
  const auto* v = body.if_contains("rate_limits");
  if (v == nullptr || v->is_null()) return std::nullopt;
  if (!v->is_object()) throw BadRequest("rate_limits must be an object");
  services::CaRateLimitsChange change;
  for (const auto& [key, item] : v->as_object()) {
    std::optional<services::QuotaLimitChange>* target = key == "certificates" ? &change.certificates
                                                        : key == "orders"     ? &change.orders
                                                        : key == "failed_validations"
                                                            ? &change.failed_validations
                                                            : nullptr;
    if (target == nullptr) {
      throw BadRequest("unknown field in rate_limits: " + std::string(key).substr(0, 40));
    }
    if (!item.is_object()) {
      throw BadRequest("rate_limits." + std::string(key) + " must be an object");
    }
    services::QuotaLimitChange limit;
    for (const auto& [field, number] : item.as_object()) {
      const std::string name =
          "rate_limits." + std::string(key) + "." + std::string(field).substr(0, 40);
      if (field != "max" && field != "window_seconds") {
        throw BadRequest("unknown field " + name);
      }
      if (!number.is_int64() && !number.is_uint64()) {
        throw BadRequest(name + " must be an integer");
      }
      if (number.is_uint64() && number.as_uint64() > (1ULL << 40)) {
        throw BadRequest(name + " is out of range");
      }
      const auto n =
          number.is_int64() ? number.as_int64() : static_cast<std::int64_t>(number.as_uint64());
      if (field == "max") {
        limit.max = n;
      } else {
        if (n < 0 || n > 100LL * 24 * 3600) throw BadRequest(name + " is out of range");
        limit.window = std::chrono::seconds{n};
      }
    }
    *target = limit;
  }
  return change;
}

}  // namespace

void Api::addCaProviderRoutes() {
  router_.add("GET", "/api/v1/ca-providers", [this](const Call& c) {
    auto listed = s_.caProviders.list(c.who());
    if (!listed) return errorResponse(listed.error());
    json::array providers;
    for (const auto& p : *listed)
      providers.push_back(providerJson(p));
    const auto total = static_cast<std::int64_t>(providers.size());
    return jsonResponse(200, json::object{{"ca_providers", providers},
                                          {"total", total},
                                          {"page", 1},
                                          {"page_size", std::max<std::int64_t>(total, 20)}});
  });

  router_.add("GET", "/api/v1/ca-providers/presets", [this](const Call& c) {
    auto presets = s_.caProviders.presets(c.who());
    if (!presets) return errorResponse(presets.error());
    json::array out;
    for (const auto& p : *presets) {
      out.push_back(json::object{{"preset", p.key},
                                 {"name", p.name},
                                 {"directory_url", p.directory_url},
                                 {"eab_required", p.eab_required},
                                 {"caa_identities", json::array{json::value(p.caa_identity)}},
                                 {"rate_limits", rateLimitsJson(p.rate_limits)}});
    }
    return jsonResponse(200, json::object{{"presets", out}});
  });

  router_.add("POST", "/api/v1/ca-providers", [this](const Call& c) {
    const auto body = parseBody(c.request);
    refuseUnknown(body, true);
    domain::CaProvider draft;
    const auto preset = optionalString(body, "preset", 40).value_or("custom");
    if (preset != "custom") {
      const auto* found = domain::findCaPreset(preset);
      if (found == nullptr) {
        throw BadRequest("unknown value for preset: '" + preset.substr(0, 40) + "'");
      }
      draft = domain::providerFromPreset(*found);
    } else {
      draft.directory_url = requiredString(body, "directory_url", 2000);
    }
    if (auto v = optionalString(body, "name", 200)) draft.name = *v;
    if (preset == "custom" && !body.contains("name"))
      draft.name = requiredString(body, "name", 200);
    if (auto v = optionalString(body, "directory_url", 2000)) draft.directory_url = *v;
    if (auto v = optionalString(body, "trust_bundle", 65536)) draft.trust_bundle = *v;
    if (auto v = optionalBool(body, "eab_required")) draft.eab_required = *v;
    if (auto v = optionalNames(body, "caa_identities")) draft.caa_identities = *v;
    if (auto v = optionalLimits(body)) services::applyLimits(draft.rate_limits, *v);
    if (auto v = optionalBool(body, "enabled")) draft.enabled = *v;
    auto made = s_.caProviders.create(c.who(), c.context, std::move(draft));
    if (!made) return errorResponse(made.error());
    return jsonResponse(201, providerJson(*made));
  });

  router_.add("GET", "/api/v1/ca-providers/:provider_id", [this](const Call& c) {
    auto found = s_.caProviders.get(c.who(), c.param("provider_id"));
    if (!found) return errorResponse(found.error());
    return jsonResponse(200, providerJson(*found));
  });

  router_.add("PATCH", "/api/v1/ca-providers/:provider_id", [this](const Call& c) {
    const auto body = parseBody(c.request);
    refuseUnknown(body, false);
    services::CaProviderChange change;
    change.name = optionalString(body, "name", 200);
    change.directory_url = optionalString(body, "directory_url", 2000);
    change.trust_bundle = optionalString(body, "trust_bundle", 65536);
    change.eab_required = optionalBool(body, "eab_required");
    change.caa_identities = optionalNames(body, "caa_identities");
    change.rate_limits = optionalLimits(body);
    change.enabled = optionalBool(body, "enabled");
    auto updated = s_.caProviders.update(c.who(), c.context, c.param("provider_id"), change);
    if (!updated) return errorResponse(updated.error());
    return jsonResponse(200, providerJson(*updated));
  });

  router_.add("DELETE", "/api/v1/ca-providers/:provider_id", [this](const Call& c) {
    if (auto s = s_.caProviders.remove(c.who(), c.context, c.param("provider_id")); !s) {
      return errorResponse(s.error());
    }
    HttpResponse r;
    r.status = 204;
    return r;
  });

  router_.add("POST", "/api/v1/ca-providers/:provider_id/refresh", [this](const Call& c) {
    auto read = s_.caProviders.refresh(c.who(), c.context, c.param("provider_id"));
    if (!read) return errorResponse(read.error());
    return jsonResponse(200, providerJson(*read));
  });
}

}  // namespace certsteward::adapters::rest
