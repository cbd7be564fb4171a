// NotificationService: what people do with notification channels besides configuring them —
// read a channel's deliveries (project viewer) and send it a test message (project admin,
// audited `notification_channel.test`).
#pragma once

#include <certsteward/domain/notification.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/notification_runner.hpp>

namespace certsteward::services {

class NotificationService {
 public:
  struct Ports {
    ports::NotificationChannelRepository& channels;
    ports::NotificationDeliveryRepository& deliveries;
  };
  NotificationService(Ports ports, NotificationRunner& runner, const AccessControl& access,
                      AuditService& audit)
      : p_(ports), runner_(runner), access_(access), audit_(audit) {}

  // Newest first; not_found for a channel that is not the project's.
  domain::Result<domain::Page<domain::NotificationDelivery>> deliveries(
      const Principal& who, const domain::Id& projectId, const domain::Id& channelId,
      const domain::PageRequest& page);
  // Sends a test message now. The delivery says whether it went out (`sent`) or not (`dead`,
  // last_error with the server's words); failed_precondition (409) for a disabled channel.
  domain::Result<domain::NotificationDelivery> test(const Principal& who, const RequestContext& ctx,
                                                    const domain::Id& projectId,
                                                    const domain::Id& channelId);

 private:
  domain::Result<domain::NotificationChannel> channel(const Principal& who,
                                                      const domain::Id& projectId,
                                                      const domain::Id& id);

  Ports p_;
  NotificationRunner& runner_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::services
