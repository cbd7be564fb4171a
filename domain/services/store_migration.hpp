// StoreMigration: `certsteward migrate --from URL --to URL`. Everything one store holds is copied
// into another, empty one through the ports alone (so any pair of stores works: SQLite to
// MongoDB and back), then checked: every kind counted again in the target, and the audit chain
// copied entry by entry with its checksums and MACs unchanged (so it verifies under the same
// audit key exactly as before).
//
// Copied: users, projects, memberships, every project's resources (ACME accounts, DNS
// credentials, zones, credentials, module configurations, certificates, distributions,
// notification channels, rules, deliveries and states), jobs with their logs, events, the
// licence, the org-wide settings (kSettingKeys) and the audit log.
// Not copied, being transient: refresh tokens (everyone signs in again), idempotency records,
// rate-limit counters, the scheduler lease and the CA activity records behind quota counting.
//
// Refused: while either store's scheduler lease is current (an instance is running), and when
// the target holds anything already (it never merges; empty it and run again).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "domain/audit.hpp"
#include "domain/result.hpp"
#include "ports/clock.hpp"
#include "ports/store.hpp"

namespace certsteward::domain {

struct MigratedKind {
  std::string kind;         // "users", "certificates", "job_logs", ...
  std::int64_t source = 0;  // found in the source
  std::int64_t target = 0;  // found in the target after the copy
};

struct MigrationReport {
  std::vector<MigratedKind> kinds;      // in copy order
  std::int64_t audit_entries = 0;       // copied, each checked in place
  std::optional<AuditHead> audit_head;  // the target's head, equal to the source's
  bool complete = false;                // every count matches and the chain is the same
};

class StoreMigration {
 public:
  // The settings documents that are copied: every key the services write.
  static const std::vector<std::string>& settingKeys();

  StoreMigration(ports::Store& from, ports::Store& to, const ports::Clock& clock)
      : from_(from), to_(to), clock_(clock) {}

  // Copies, then counts again. @return the report (complete = false when a count differs: the
  // report says which); failed_precondition when an instance holds either store's scheduler
  // lease or the target is not empty; the first store error otherwise (the target then holds
  // part of the data: empty it before trying again). `progress` hears a line per kind.
  Result<MigrationReport> run(const std::function<void(const std::string&)>& progress = {});

 private:
  Status preflight();
  Status copyAuditLog(MigrationReport& report);

  ports::Store& from_;
  ports::Store& to_;
  const ports::Clock& clock_;
};

}  // namespace certsteward::domain
