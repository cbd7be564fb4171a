// ChannelSenders: the NotificationSender port for every channel kind — email (SMTP, see
// smtp_channel.hpp), webhook, slack, discord, teams and telegram (HTTPS, see
// http_channels.hpp) — chosen by the channel's kind; an unknown kind is failed_precondition.
// Holds no state: thread-safe, each send opens its own connection.
#pragma once

#include <string>

#include "ports/notification_sender.hpp"

namespace certsteward::adapters::notify {

class ChannelSenders : public ports::NotificationSender {
 public:
  ChannelSenders();

  domain::Status send(const domain::NotificationChannel& channel, const std::string& secret,
                      const ports::OutgoingMessage& message, domain::Duration timeout) override;
};

}  // namespace certsteward::adapters::notify
