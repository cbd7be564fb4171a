// Notification channels (where events go) and rules (which events go where).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "domain/events.hpp"
#include "domain/id.hpp"
#include "domain/time.hpp"

namespace certsteward::domain {

struct NotificationChannel {
  Id id;
  Id project_id;
  std::string name;
  std::string kind;  // "webhook", "email"
  std::map<std::string, std::string> settings;
  std::string secret_sealed;  // e.g. a webhook signing secret or SMTP password
  bool enabled = true;
  Timestamp created_at{};
  Timestamp updated_at{};
};

struct NotificationRule {
  Id id;
  Id project_id;
  std::string name;
  std::vector<EventKind> events;
  std::vector<Id> channel_ids;
  bool enabled = true;
  Timestamp created_at{};
  Timestamp updated_at{};
};

}  // namespace certsteward::domain
