// The channels reached by an HTTPS POST (libcurl, through adapters/common/http_client):
//   webhook  — settings.url; message.body as is (Content-Type: settings.content_type, default
//              application/json), else {"delivery_id","event","recovery","subject","message",
//              "at","variables"}; settings.headers ("Name: value" lines) added; signed with
//              X-CertSteward-Signature: sha256=HMAC-SHA256(secret, "<timestamp>.<body>") when the
//              secret is set; X-CertSteward-Delivery / -Event / -Timestamp always.
//   slack    — secret = incoming-webhook URL; {"text": subject "\n" text} (& < > escaped).
//   discord  — secret = webhook URL; {"content": ...} cut to 2000 characters with "…", no pings.
//   teams    — secret = Workflows webhook URL; a message with one Adaptive Card (1.4).
//   telegram — secret = bot token; <api_base_url>/bot<token>/sendMessage.
// Every connection goes through the server's outbound policy (adapters/common/outbound.hpp).
// A 2xx answer is success; 408, 425, 429, 5xx and network errors are unavailable; anything else
// is failed_precondition quoting the status. Errors never hold the secret (a URL or token) nor
// any of the peer's answer (logged instead); a failed connection is "could not connect".
// Thread-safe.
#pragma once

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/domain/notification.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>
#include <certsteward/ports/notification_sender.hpp>

namespace certsteward::adapters::notify {

domain::Status sendWebhook(const common::Outbound& outbound,
                           const domain::NotificationChannel& channel, const std::string& secret,
                           const ports::OutgoingMessage& message, domain::Duration timeout);
domain::Status sendSlack(const common::Outbound& outbound,
                         const domain::NotificationChannel& channel, const std::string& secret,
                         const ports::OutgoingMessage& message, domain::Duration timeout);
domain::Status sendDiscord(const common::Outbound& outbound,
                           const domain::NotificationChannel& channel, const std::string& secret,
                           const ports::OutgoingMessage& message, domain::Duration timeout);
domain::Status sendTeams(const common::Outbound& outbound,
                         const domain::NotificationChannel& channel, const std::string& secret,
                         const ports::OutgoingMessage& message, domain::Duration timeout);
domain::Status sendTelegram(const common::Outbound& outbound,
                            const domain::NotificationChannel& channel, const std::string& secret,
                            const ports::OutgoingMessage& message, domain::Duration timeout);

}  // namespace certsteward::adapters::notify
