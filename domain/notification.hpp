// Notification channels (where events go), rules (which events go where, and when), the
// deliveries that carry one message to one channel (the outbox), and what a rule remembers per
// subject (the failure it reported, the expiry thresholds it crossed).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/events.hpp>
#include <certsteward/domain/id.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

// kind: "email", "webhook", "slack", "teams", "discord", "telegram" (docs/api.md lists every
// setting). The secret (SMTP password, webhook signing secret, incoming-webhook URL, bot token)
// is sealed and never returned.
struct NotificationChannel {
  Id id;
  Id project_id;
  std::string name;
  std::string kind;
  std::map<std::string, std::string> settings;
  std::string secret_sealed;
  bool enabled = true;
  Timestamp created_at{};
  Timestamp updated_at{};
};

inline constexpr const char* kRuleModeEach = "each";
inline constexpr const char* kRuleModeDigest = "digest";

struct NotificationRule {
  Id id;
  Id project_id;
  std::string name;
  std::vector<EventKind> events;
  std::vector<Id> channel_ids;
  bool enabled = true;
  Timestamp created_at{};
  Timestamp updated_at{};
  // Only events about certificates whose common name matches (`*` any run of characters,
  // case-insensitive; empty: every event).
  std::string certificate_pattern = {};
  // A failure is reported once per subject, and its recovery (cert.issued / cert.renewed,
  // distribution.succeeded) is reported once when it comes.
  bool only_on_change = false;
  // cert.expiring_soon: reported once per certificate and threshold crossed (days left).
  std::vector<int> thresholds_days = {30, 14, 7, 3, 1};
  std::string mode = kRuleModeEach;   // or kRuleModeDigest
  std::string digest_time = "08:00";  // HH:MM UTC, mode digest: one message a day
  std::optional<Timestamp> last_digest_at = {};
};

enum class DeliveryStatus {
  pending,   // queued as a job, not sent yet (or retrying after a failed attempt)
  sent,      // the channel accepted it
  dead,      // every attempt failed; last_error says why
  held,      // waits for its rule's digest
  digested,  // went out inside a digest (digest_id)
};
std::string_view nameOf(DeliveryStatus s) noexcept;
std::optional<DeliveryStatus> parseDeliveryStatus(std::string_view text) noexcept;

// One message to one channel: written in the same transaction as its event, sent by a
// `notification_delivery` job on the notification lane (at least once; `id` is the stable
// delivery id receivers use to drop duplicates).
struct NotificationDelivery {
  Id id;
  Id project_id;
  Id channel_id;
  Id rule_id;         // empty for a channel test
  Id event_id;        // empty for a digest or a test
  std::string event;  // the event kind's name, "digest" or "test"
  Id resource_id;
  bool recovery = false;  // reports that a failure ended
  // The message's variables (event, message, at, project.name, certificate.*, days_left, ...).
  std::map<std::string, std::string> variables;
  std::vector<Id> items = {};  // a digest: the held deliveries it lists
  DeliveryStatus status = DeliveryStatus::pending;
  int attempts = 0;
  std::string last_error = {};
  Id job_id = {};
  Id digest_id = {};  // digested: the digest that carried it
  Timestamp created_at{};
  Timestamp updated_at{};
  std::optional<Timestamp> sent_at = {};
};

// What one rule remembers about one subject (a certificate, a distribution, a job).
struct NotificationState {
  Id id;
  Id project_id;
  Id rule_id;
  Id subject;
  std::vector<EventKind> failing = {};  // failures reported, no recovery since
  // cert.expiring_soon: the smallest threshold reported, for the expiry it was reported for.
  std::optional<int> threshold_days = {};
  std::string expires_at = {};
  Timestamp updated_at{};
};

}  // namespace certsteward::domain
