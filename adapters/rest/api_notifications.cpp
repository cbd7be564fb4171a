// A notification channel's deliveries and its test message.
#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/rest/json_io.hpp>

namespace certsteward::adapters::rest {
namespace {

json::value idOrNull(const domain::Id& id) {
  return id.empty() ? json::value(nullptr) : json::value(id);
}

json::object deliveryJson(const domain::NotificationDelivery& d) {
  json::object variables;
  for (const auto& [k, v] : d.variables)
    variables[k] = v;
  return {{"id", d.id},
          {"project_id", d.project_id},
          {"channel_id", d.channel_id},
          {"rule_id", idOrNull(d.rule_id)},
          {"event_id", idOrNull(d.event_id)},
          {"event", d.event},
          {"resource_id", idOrNull(d.resource_id)},
          {"recovery", d.recovery},
          {"status", std::string(domain::nameOf(d.status))},
          {"attempts", d.attempts},
          {"last_error", d.last_error},
          {"job_id", idOrNull(d.job_id)},
          {"digest_id", idOrNull(d.digest_id)},
          {"items", static_cast<std::int64_t>(d.items.size())},
          {"variables", std::move(variables)},
          {"created_at", timestamp(d.created_at)},
          {"updated_at", timestamp(d.updated_at)},
          {"sent_at", timestamp(d.sent_at)}};
}

}  // namespace

void Api::addNotificationRoutes() {
  const std::string channel = "/api/v1/projects/:project_id/notification-channels/:id";
  router_.add("GET", channel + "/deliveries", [this](const Call& c) {
    auto page = s_.notifications.deliveries(c.who(), c.param("project_id"), c.param("id"),
                                            pageFrom(c.request));
    if (!page) return errorResponse(page.error());
    return pageResponse("deliveries", *page, deliveryJson);
  });
  router_.add("POST", channel + "/test", [this](const Call& c) {
    auto sent = s_.notifications.test(c.who(), c.context, c.param("project_id"), c.param("id"));
    if (!sent) return errorResponse(sent.error());
    const bool ok = sent->status == domain::DeliveryStatus::sent;
    return jsonResponse(
        200, json::object{{"ok", ok},
                          {"error", ok ? json::value(nullptr) : json::value(sent->last_error)},
                          {"delivery", deliveryJson(*sent)}});
  });
}

}  // namespace certsteward::adapters::rest
