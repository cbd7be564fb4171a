// The settings of a notification channel, per kind: which exist, which are required, what a
// valid value is (docs/api.md lists them). Checked when a channel is saved, so a broken channel
// is a 422 then, not a failed delivery at 3 a.m.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/notification.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::domain {

// "email", "webhook", "slack", "teams", "discord", "telegram".
const std::vector<std::string_view>& notificationChannelKinds();

// Whether the channel's secret is what reaches the service (slack, teams, discord: the
// incoming-webhook URL; telegram: the bot token), so a channel without one cannot send.
bool channelNeedsSecret(std::string_view kind);

// invalid_argument: an unknown kind is malformed (400); an unknown or missing setting, a bad
// host, port, address, URL, header or template is 422 naming the setting. `secretSet`: whether
// the channel has a secret (after this save).
Status checkChannel(const NotificationChannel& channel, bool secretSet);

// invalid_argument (422) when a secret given for the channel cannot work for its kind: slack,
// teams and discord take their incoming-webhook URL (https, or http to a loopback host),
// telegram a bot token ("<digits>:<letters, digits, _ and ->"). Never quotes the secret.
Status checkChannelSecret(const NotificationChannel& channel, std::string_view secret);

// A plain addr-spec: printable ASCII without spaces, quotes, brackets, ',', ';' or ':', a
// non-empty local part and domain around the last '@', at most 254 characters.
bool isEmailAddress(std::string_view address);

// An HTTP token (RFC 9110): a header name, at most 100 characters.
bool isHttpToken(std::string_view name);

// The addresses of an email channel's `to` (comma-separated), trimmed.
std::vector<std::string> emailRecipients(const NotificationChannel& channel);

}  // namespace certsteward::domain
