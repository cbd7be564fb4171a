// The lookup keys the persistent stores index project-scoped resources by (the `ref`/`ref2` of
// the SQLite `resources` table and of the MongoDB `resources` collection), written once for both.
#pragma once

#include <optional>
#include <string>

#include <certsteward/domain/notification.hpp>

namespace certsteward::adapters::codec {

// A notification state's key: one per (rule, subject). Rule ids hold no '/', so it is unambiguous.
inline std::string notificationStateKey(const domain::Id& ruleId, const domain::Id& subject) {
  return ruleId + "/" + subject;
}

// A delivery's second key: its rule while it is held for the rule's digest, none otherwise (so
// only held deliveries are in that index).
inline std::optional<std::string> heldDeliveryKey(const domain::NotificationDelivery& d) {
  if (d.status != domain::DeliveryStatus::held) return std::nullopt;
  return d.rule_id;
}

}  // namespace certsteward::adapters::codec
