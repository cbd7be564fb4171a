// Dispatch by channel kind; no exception leaves the port.
#include <certsteward/adapters/notify/channel_senders.hpp>

#include <exception>
#include <string_view>

#include <certsteward/adapters/common/http_client.hpp>
#include <certsteward/adapters/notify/channel_text.hpp>
#include <certsteward/adapters/notify/http_channels.hpp>
#include <certsteward/adapters/notify/smtp_channel.hpp>

namespace certsteward::adapters::notify {

namespace {

using Sender = domain::Status (*)(const common::Outbound&, const domain::NotificationChannel&,
                                  const std::string&, const ports::OutgoingMessage&,
                                  domain::Duration);

struct Kind {
  std::string_view name;
  Sender send;
};

constexpr Kind kKinds[] = {{"email", sendEmail}, {"webhook", sendWebhook},
                           {"slack", sendSlack}, {"discord", sendDiscord},
                           {"teams", sendTeams}, {"telegram", sendTelegram}};

}  // namespace

ChannelSenders::ChannelSenders(std::shared_ptr<const common::Outbound> outbound)
    : outbound_(std::move(outbound)) {
  common::initCurlOnce();  // before any thread sends
}

domain::Status ChannelSenders::send(const domain::NotificationChannel& channel,
                                    const std::string& secret,
                                    const ports::OutgoingMessage& message,
                                    domain::Duration timeout) {
  for (const auto& kind : kKinds) {
    if (kind.name != channel.kind) continue;
    try {
      return kind.send(*outbound_, channel, secret, message, timeout);
    } catch (const std::exception&) {  // allocation failures and the like; never the secret
      return domain::makeError(domain::ErrorCode::internal,
                               channel.kind + ": the message could not be sent (internal error)");
    }
  }
  return domain::makeError(domain::ErrorCode::failed_precondition,
                           "unknown notification channel kind '" + excerpt(channel.kind, 40) + "'");
}

}  // namespace certsteward::adapters::notify
