// CatalogService: what this server offers, described for forms and hints (GET /api/v1/catalog),
// so that no client keeps its own copy. Today the event kinds notification rules subscribe to;
// the families of pluggable kinds (DNS providers, distribution modules, channels, credentials)
// join it with their fields.
#pragma once

#include <string>
#include <vector>

#include <certsteward/domain/events.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/services/access_control.hpp>

namespace certsteward::services {

struct EventKindEntry {
  domain::EventKind kind;
  std::string summary;   // when it is raised, in one line
  bool failure = false;  // a failure kind (a rule in digest mode groups these)
};

struct Catalog {
  std::vector<EventKindEntry> event_kinds;  // every kind, in declaration order
};

class CatalogService {
 public:
  explicit CatalogService(const AccessControl& access) : access_(access) {}

  // For every member of the organisation (the rule that lets a member read the licence).
  domain::Result<Catalog> describe(const Principal& who) const;

 private:
  const AccessControl& access_;
};

}  // namespace certsteward::services
