// The `email` channel: SMTP through libcurl. settings: host, port (587 for starttls, 465 for tls,
// 25 for none), tls (starttls — the default, required before anything is sent —, tls: implicit
// TLS, none: plain text, for a loopback host only), from, from_name, to (comma-separated),
// username (the secret is its password), ca_bundle (PEM CAs trusted instead of the system's).
// The server's certificate and name are always verified. The message is mime_message.hpp's.
// Errors quote the server's reply ("535 5.7.8 ...") and never the password: failed_precondition
// for a refused login, sender, recipient (named) or message, an untrusted certificate or a
// server without STARTTLS; unavailable for "cannot connect to host:port", a timeout or a
// 4xx reply. Thread-safe.
#pragma once

#include <string>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/domain/notification.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>
#include <certsteward/ports/notification_sender.hpp>

namespace certsteward::adapters::notify {

domain::Status sendEmail(const common::Outbound& outbound,
                         const domain::NotificationChannel& channel, const std::string& secret,
                         const ports::OutgoingMessage& message, domain::Duration timeout);

}  // namespace certsteward::adapters::notify
