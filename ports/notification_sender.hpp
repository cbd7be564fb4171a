// NotificationSender: hands one rendered message to one channel (SMTP server, webhook receiver,
// Slack, Teams, Discord, Telegram). The adapter formats it as the channel's service documents.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <certsteward/domain/notification.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::ports {

// One message, rendered by the core: `subject` and `text` are plain text; `html` is the same
// message as an HTML fragment (escaped) for email; `body` is the channel's `body_template`
// rendered for the webhook (JSON-escaped), empty when the channel has none.
struct OutgoingMessage {
  domain::Id delivery_id;  // stable across retries: receivers drop duplicates by it
  std::string event;       // event kind name, "digest" or "test"
  bool recovery = false;
  std::string subject;
  std::string text;
  std::string html;
  std::string body;
  std::map<std::string, std::string> variables;  // what the message was rendered from
  domain::Timestamp at{};                        // when the event happened
  // An earlier attempt of this delivery may have reached the receiver (it was cut short, or
  // failed after sending): webhooks carry X-CertSteward-Redelivery: 1 and "redelivery": true.
  bool redelivery = false;
};

class NotificationSender {
 public:
  virtual ~NotificationSender() = default;

  /**
   * Sends `message` through `channel` (its settings as validated by checkChannelSettings) with
   * its opened secret, within `timeout`. @return ok once the server accepted it; otherwise an
   * error whose message says what the server or the network said (never the secret):
   * unavailable (connection refused, timeout, 5xx, 429: worth retrying) or failed_precondition
   * (refused for good: 4xx, authentication failed, recipient refused). Thread-safe.
   */
  virtual domain::Status send(const domain::NotificationChannel& channel, const std::string& secret,
                              const OutgoingMessage& message, domain::Duration timeout) = 0;
};

}  // namespace certsteward::ports
