// CatalogService: what this server offers, described for forms and hints (GET /api/v1/catalog),
// so that no client keeps its own copy: the event kinds notification rules subscribe to, and each
// family of pluggable kinds (DNS providers, distribution modules, notification channels,
// credentials) with the fields it takes — the very description the validators check
// (domain/catalog.hpp), with the server's own lists (dns.exec_commands, ...) filled in; and every
// action the audit log records (domain/audit_catalog.hpp), for the audit filters.
#pragma once

#include <string>
#include <vector>

#include <certsteward/domain/audit_catalog.hpp>
#include <certsteward/domain/distribution_settings.hpp>
#include <certsteward/domain/events.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/services/access_control.hpp>

namespace certsteward::services {

struct EventKindEntry {
  domain::EventKind kind;
  std::string summary;   // when it is raised, in one line
  bool failure = false;  // a failure kind (a rule in digest mode groups these)
};

// One kind of a family, as this server offers it.
struct KindEntry {
  // The description; an enumeration whose values come from the server's configuration
  // (`values_from`) has them here (views into the CatalogService, valid while it lives).
  domain::KindSpec spec;
  bool available = true;
  std::string note;  // why it is not available, and what the operator can do
};

struct Catalog {
  std::vector<EventKindEntry> event_kinds;  // every kind, in declaration order
  std::vector<KindEntry> dns_providers;
  std::vector<KindEntry> distribution_modules;
  std::vector<KindEntry> notification_channels;
  std::vector<KindEntry> credential_kinds;
  std::vector<domain::AuditActionSpec> audit_actions;  // every action, grouped by resource type
};

// The server's settings that shape what it offers.
struct CatalogPolicy {
  std::vector<std::string> dns_exec_commands;  // dns.exec_commands
  domain::DistributionPolicy distribution;     // distribution.exec_commands, .file_directories
};

class CatalogService {
 public:
  explicit CatalogService(const AccessControl& access, CatalogPolicy policy = {})
      : access_(access), policy_(std::move(policy)) {}

  // For every member of the organisation (the rule that lets a member read the licence). The
  // operator's own lists (the commands of dns.exec_commands and distribution.exec_commands: paths
  // on the server) are filled in only for callers who can configure a project (org admins, and
  // project admins of at least one project); others get those fields without values.
  domain::Result<Catalog> describe(const Principal& who) const;

 private:
  // The kinds of `specs`, with `values_from` lists filled from the policy when `serverLists`.
  std::vector<KindEntry> entries(const std::vector<domain::KindSpec>& specs,
                                 bool serverLists) const;
  // Whether `who` may configure at least one project (manage_project_config's role).
  domain::Result<bool> configuresAProject(const Principal& who) const;

  const AccessControl& access_;
  CatalogPolicy policy_;
};

}  // namespace certsteward::services
