// /api/v1/audit-logs and /api/v1/license/status.
#include <map>
#include <optional>
#include <string>

#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/rest/json_io.hpp>
#include <certsteward/domain/license.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::adapters::rest {
namespace {

// The current names of the things a page of entries names, read once each with the caller's
// rights: "" when the thing is gone (or of a type without a name), so a client shows a name
// and a link only for what still exists.
class ResourceNames {
 public:
  ResourceNames(ApiServices& s, const services::Principal& who) : s_(s), who_(who) {}

  std::string of(const domain::AuditEntry& e) {
    if (e.resource_id.empty()) return {};
    const auto [it, added] = names_.try_emplace(e.resource_type + "/" + e.resource_id);
    if (added) it->second = lookup(e);
    return it->second;
  }

 private:
  std::string lookup(const domain::AuditEntry& e) {
    const auto& id = e.resource_id;
    const auto& type = e.resource_type;
    if (type == "project") return nameOf(s_.projects.get(who_, id));
    if (type == "user") {
      auto u = s_.users.get(who_, id);
      return u ? u->username : std::string{};
    }
    if (!e.project_id) return {};
    const auto& project = *e.project_id;
    if (type == "certificate") {
      auto c = s_.certificates.get(who_, project, id);
      return c ? c->common_name : std::string{};
    }
    if (type == "acme_account") return nameOf(s_.resources.acmeAccounts.get(who_, project, id));
    if (type == "dns_credential") {
      return nameOf(s_.resources.dnsCredentials.get(who_, project, id));
    }
    if (type == "module_config") return nameOf(s_.resources.modules.get(who_, project, id));
    if (type == "notification_channel") {
      return nameOf(s_.resources.channels.get(who_, project, id));
    }
    if (type == "notification_rule") return nameOf(s_.resources.rules.get(who_, project, id));
    if (type == "credential") return nameOf(s_.resources.credentials.get(who_, project, id));
    if (type == "zone") {
      auto z = s_.resources.zones.get(who_, project, id);
      return z ? z->domain : std::string{};
    }
    return {};
  }

  template <class T>
  static std::string nameOf(const domain::Result<T>& r) {
    return r ? r->name : std::string{};
  }

  ApiServices& s_;
  const services::Principal& who_;
  std::map<std::string, std::string> names_;
};

json::object toJson(const domain::AuditEntry& e, const std::string& resourceName = {}) {
  return {
      {"id", e.id},
      {"timestamp", timestamp(e.timestamp)},
      {"action", e.action},
      {"resourceType", e.resource_type},
      {"resource_id", e.resource_id},
      {"project_id", e.project_id ? json::value(*e.project_id) : json::value(nullptr)},
      {"actor_user_id", e.actor_user_id},
      {"actor_username", e.actor_username},
      {"ip", e.ip},
      {"request_id", e.request_id},
      {"details", e.details},
      {"checksum", e.checksum},
      {"sequence", e.sequence},
      {"mac", e.mac},
      {"resource_name", resourceName.empty() ? json::value(nullptr) : json::value(resourceName)}};
}

std::optional<domain::Timestamp> timeParam(const HttpRequest& request, const char* name) {
  const auto text = queryParam(request, name);
  if (!text) return std::nullopt;
  auto at = domain::parseTimestamp(*text);
  if (!at) throw BadRequest(std::string(name) + " must be an RFC 3339 timestamp");
  return at;
}

json::object licenseJson(const services::LicenseStatus& v) {
  return {{"valid", v.valid},
          {"plan", v.plan},
          {"plan_name", v.plan_name},
          {"cert_limit", v.cert_limit},
          {"expires_at", timestamp(v.expires_at)},
          {"in_grace_period", v.in_grace_period},
          {"grace_remaining_seconds", v.grace_remaining_seconds},
          {"license_key", v.license_key},
          {"fingerprint", v.fingerprint},
          {"activation_id", v.activation_id},
          {"activated_at", timestamp(v.activated_at)},
          {"last_checked_at", timestamp(v.last_checked_at)},
          {"api_key_configured", v.api_key_configured},
          {"license_mode", v.license_mode},
          {"certificates_used", v.certificates_used}};
}

}  // namespace

void Api::addAuditRoutes() {
  router_.add("GET", "/api/v1/audit-logs", [this](const Call& c) {
    ports::AuditFilter filter;
    filter.action = queryParam(c.request, "action");
    filter.resource_type = queryParam(c.request, "resource_type");
    filter.actor_user_id = queryParam(c.request, "actor_user_id");
    filter.project_id = queryParam(c.request, "project_id");
    filter.since = timeParam(c.request, "since");
    filter.until = timeParam(c.request, "until");
    ResourceNames names(s_, c.who());
    if (const auto cursor = cursorFrom(c.request, "audit")) {
      // Chain order from the cursor's instant (timestamps strictly increase along the chain).
      std::optional<domain::Timestamp> since;
      if (cursor->position > 0) since = domain::Timestamp{domain::Duration{cursor->position}};
      // A `since` filter starts the walk there instead of at the beginning of the chain.
      if (filter.since && (!since || *since < *filter.since)) since = filter.since;
      auto walked = s_.audit.walk(c.who(), filter, since, cursor->limit);
      if (!walked) return errorResponse(walked.error());
      json::array logs;
      for (const auto& e : walked->entries)
        logs.push_back(toJson(e, names.of(e)));
      const auto next = walked->next.time_since_epoch().count();
      return jsonResponse(200, json::object{{"logs", logs},
                                            {"limit", cursor->limit},
                                            {"next_cursor", makeCursor("audit", next)}});
    }
    auto page = s_.audit.list(c.who(), filter, pageFrom(c.request));
    if (!page) return errorResponse(page.error());
    return pageResponse("logs", *page,
                        [&](const domain::AuditEntry& e) { return toJson(e, names.of(e)); });
  });

  // Before /:entry_id: the first matching route wins.
  router_.add("GET", "/api/v1/audit-logs/head", [this](const Call& c) {
    auto head = s_.audit.head(c.who());
    if (!head) return errorResponse(head.error());
    if (!*head) return jsonResponse(200, json::object{{"sequence", 0}, {"checksum", ""}});
    return jsonResponse(200, json::object{{"sequence", (*head)->sequence},
                                          {"checksum", (*head)->checksum},
                                          {"entry_id", (*head)->id},
                                          {"timestamp", timestamp((*head)->timestamp)}});
  });

  router_.add("GET", "/api/v1/audit-logs/:entry_id", [this](const Call& c) {
    auto entry = s_.audit.get(c.who(), c.param("entry_id"));
    if (!entry) return errorResponse(entry.error());
    return jsonResponse(200, json::object{{"log", toJson(*entry)}});
  });

  router_.add("POST", "/api/v1/audit-logs/verify", [this](const Call& c) {
    std::optional<domain::Timestamp> since;
    if (auto text = queryParam(c.request, "since")) {
      since = domain::parseTimestamp(*text);
      if (!since) throw BadRequest("since must be an RFC 3339 timestamp");
    }
    // A head recorded earlier (GET /audit-logs/head): a chain that no longer reaches it, or
    // reaches another entry there, was cut or rewritten.
    std::optional<domain::AuditHead> expected;
    const auto expectedSequence = queryInt(c.request, "expected_sequence");
    const auto expectedChecksum = queryParam(c.request, "expected_checksum");
    if (expectedSequence.has_value() != expectedChecksum.has_value()) {
      throw BadRequest("expected_sequence and expected_checksum go together");
    }
    if (expectedSequence) {
      if (*expectedSequence < 1) throw BadRequest("expected_sequence must be at least 1");
      expected = domain::AuditHead{*expectedSequence, *expectedChecksum};
    }
    auto result = s_.audit.verify(c.who(), since, queryInt(c.request, "limit"), expected);
    if (!result) return errorResponse(result.error());
    json::array breaks;
    for (const auto& b : result->breaks) {
      breaks.push_back(json::object{
          {"entry_id", b.entry_id},
          {"timestamp", b.entry_id.empty() ? json::value(nullptr) : timestamp(b.timestamp)},
          {"expected_checksum", b.expected_checksum},
          {"actual_checksum", b.actual_checksum},
          {"reason", b.reason}});
    }
    return jsonResponse(200, json::object{{"verified", result->verified},
                                          {"intact", result->intact},
                                          {"breaks", breaks},
                                          {"next_since", timestamp(result->next_since)}});
  });

  router_.add("GET", "/api/v1/license/status", [this](const Call& c) {
    auto view = s_.license.status(c.who());
    if (!view) return errorResponse(view.error());
    return jsonResponse(200, licenseJson(*view));
  });

  router_.add("POST", "/api/v1/license/activate", [this](const Call& c) {
    const auto body = parseBody(c.request);
    auto view = s_.license.activate(c.who(), c.context, requiredString(body, "license_key", 8192));
    if (!view) return errorResponse(view.error());
    return jsonResponse(200, licenseJson(*view));
  });
}

}  // namespace certsteward::adapters::rest
