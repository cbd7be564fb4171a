// ChannelSenders: the NotificationSender port for every channel kind — email (SMTP, see
// smtp_channel.hpp), webhook, slack, discord, teams and telegram (HTTPS, see
// http_channels.hpp) — chosen by the channel's kind; an unknown kind is failed_precondition.
// Holds only the outbound policy: thread-safe, each send opens its own connection.
#pragma once

#include <memory>
#include <string>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/ports/notification_sender.hpp>

namespace certsteward::adapters::notify {

class ChannelSenders : public ports::NotificationSender {
 public:
  // Every send goes through `outbound` (the server's network.outbound_allow).
  explicit ChannelSenders(std::shared_ptr<const common::Outbound> outbound);

  domain::Status send(const domain::NotificationChannel& channel, const std::string& secret,
                      const ports::OutgoingMessage& message, domain::Duration timeout) override;

 private:
  std::shared_ptr<const common::Outbound> outbound_;
};

}  // namespace certsteward::adapters::notify
