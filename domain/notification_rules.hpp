// What a notification rule decides for one event: whether it sends, whether the message reports
// a recovery, and what it remembers about the event's subject afterwards — plus the checks of a
// rule's own fields and the default wording of messages. Pure functions, no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/events.hpp>
#include <certsteward/domain/notification.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::domain {

// invalid_argument (422) naming the field: a pattern over 253 characters or with characters a
// DNS name cannot hold (besides `*`), thresholds outside 1..365 or more than 10, an unknown
// mode (400), a digest_time that is not HH:MM.
Status checkRuleFields(const NotificationRule& rule);

// Whether `name` matches `pattern` (`*` any run of characters, case-insensitive; empty pattern:
// everything).
bool matchesPattern(std::string_view pattern, std::string_view name);

// Whether the rule has a say about an event of `kind`: it subscribes to it, or (only_on_change)
// to a failure that `kind` recovers from.
bool concerns(const NotificationRule& rule, EventKind kind);

// The threshold (days) an expiry `daysLeft` away has crossed: the smallest threshold not below
// it (every threshold once expired); nullopt when it is further away than every threshold.
std::optional<int> crossedThreshold(const std::vector<int>& thresholdsDays, long daysLeft);

struct RuleDecision {
  bool send = false;
  bool recovery = false;  // the message says a failure ended
  // What to remember about the subject (nullopt: nothing changes). Its id, project and rule
  // are filled in by the caller when it is new.
  std::optional<NotificationState> remember;
};

// The rule's decision for `event` (details: certificate.common_name, days_left,
// certificate.expires_at) given what it remembers about the event's subject.
RuleDecision decide(const NotificationRule& rule, const Event& event,
                    const std::optional<NotificationState>& state);

// The subject of an event: event.subject, else its resource.
inline const Id& subjectOf(const Event& e) {
  return e.subject.empty() ? e.resource_id : e.subject;
}

// What an event about `cert` carries for messages: certificate.id, .common_name, .names,
// .expires_at, .serial_number, .status, and days_left (to the nearest whole day from `now`).
std::map<std::string, std::string> certificateVariables(const Certificate& cert, Timestamp now);

// The message's variables from an event (its details, plus event, message, at).
std::map<std::string, std::string> messageVariables(const Event& event, bool recovery);

// Default wording when a channel has no template.
std::string defaultSubject(const std::map<std::string, std::string>& vars, bool recovery);
std::string defaultText(const std::map<std::string, std::string>& vars, bool recovery);

}  // namespace certsteward::domain
