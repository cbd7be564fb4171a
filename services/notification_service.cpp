// Deliveries of a channel, and its test.
#include <certsteward/services/notification_service.hpp>

namespace certsteward::services {

domain::Result<domain::NotificationChannel> NotificationService::channel(
    const Principal& who, const domain::Id& projectId, const domain::Id& id) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  return p_.channels.get(projectId, id);
}

domain::Result<domain::Page<domain::NotificationDelivery>> NotificationService::deliveries(
    const Principal& who, const domain::Id& projectId, const domain::Id& channelId,
    const domain::PageRequest& page) {
  if (auto c = channel(who, projectId, channelId); !c) return c.error();
  return p_.deliveries.listForChannel(projectId, channelId, page);
}

domain::Result<domain::NotificationDelivery> NotificationService::test(
    const Principal& who, const RequestContext& ctx, const domain::Id& projectId,
    const domain::Id& channelId) {
  auto c = channel(who, projectId, channelId);
  if (!c) return c.error();
  if (auto s = access_.check(who, Action::manage_project_config, projectId); !s) {
    return s.error();
  }
  if (!c->enabled) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "the channel is disabled: enable it first");
  }
  auto sent = runner_.test(*c);
  if (!sent) return sent.error();
  if (auto s = audit_.record(&who, ctx, "notification_channel.test", "notification_channel",
                             channelId, projectId,
                             sent->status == domain::DeliveryStatus::sent ? "sent" : "failed");
      !s) {
    return s.error();
  }
  return sent;
}

}  // namespace certsteward::services
