// The lookup keys the persistent stores index project-scoped resources by (the `ref`/`ref2` of
// the SQLite and PostgreSQL `resources` tables and of the MongoDB `resources` collection), the
// lookups built on them, and the names a certificate list searches, written once for every store.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/notification.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/zone.hpp>

namespace certsteward::adapters::codec {

// Every name of a certificate, one per line: the column the list's search looks in (a piece of
// a DNS name holds no line break, so a match never spans two names).
inline std::string certificateSearchNames(const domain::Certificate& c) {
  std::string names = c.common_name;
  for (const auto& san : c.sans) {
    if (san == c.common_name) continue;
    names += '\n';
    names += san;
  }
  return names;
}

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

// The project's zone for `name`: the name and each parent, longest first, one indexed lookup
// per label. `byDomain(domain)` gives the project's zones with that domain.
template <class ByDomain>
domain::Result<std::optional<domain::Zone>> zoneForName(const std::string& name,
                                                        ByDomain&& byDomain) {
  for (const auto& candidate : domain::zoneCandidates(name)) {
    auto zones = byDomain(candidate);
    if (!zones) return zones.error();
    if (!zones->empty()) return std::optional<domain::Zone>(zones->front());
  }
  return std::optional<domain::Zone>{};
}

// The enabled rules among `rules` that name `kind`.
inline domain::Result<std::vector<domain::NotificationRule>> rulesMatching(
    domain::Result<std::vector<domain::NotificationRule>> rules, domain::EventKind kind) {
  if (!rules) return rules.error();
  std::erase_if(*rules, [&](const domain::NotificationRule& r) {
    return !r.enabled || std::find(r.events.begin(), r.events.end(), kind) == r.events.end();
  });
  return rules;
}

// The first of `found`, nullopt when there is none.
template <class T>
domain::Result<std::optional<T>> firstOf(domain::Result<std::vector<T>> found) {
  if (!found) return found.error();
  if (found->empty()) return std::optional<T>{};
  return std::optional<T>(std::move(found->front()));
}

}  // namespace certsteward::adapters::codec
