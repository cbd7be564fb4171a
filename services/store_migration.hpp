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
// rate-limit counters, the scheduler lease, the CA activity records behind quota counting and
// HTTP-01 challenge tokens (an order in flight is retried after the move).
//
// Refused before anything is copied: while either store's scheduler lease is current (an
// instance with a scheduler is running), when the source is empty (a mistyped --from), when the
// source's audit chain has a gap in its sequence numbers, and when the target holds anything
// already (it never merges). While it copies, the migration holds both stores' scheduler leases
// itself, so no instance takes one up meanwhile. Instances without a scheduler
// (scheduler.enabled = false) hold no lease and are not noticed: stop them first; what they
// write meanwhile shows as a count that differs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/audit.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/store.hpp>

namespace certsteward::services {

struct MigratedKind {
  std::string kind;         // "users", "certificates", "job_logs", ...
  std::int64_t source = 0;  // counted in the source once the copy is done
  std::int64_t target = 0;  // counted in the target once the copy is done
};

struct MigrationReport {
  std::vector<MigratedKind> kinds;              // in copy order
  std::int64_t audit_entries = 0;               // copied, each checked in place
  std::optional<domain::AuditHead> audit_head;  // the target's head, equal to the source's
  bool complete = false;                        // every count matches and the chain is the same
  // Set when the copy stopped part-way (a store error): the target holds part of the data and
  // must be emptied before another run; kinds and complete are then not filled in.
  std::optional<domain::Error> stopped;
};

class StoreMigration {
 public:
  // The settings documents that are copied: every key the services write.
  static const std::vector<std::string>& settingKeys();
  // The holder of the scheduler leases the migration takes while it copies.
  static constexpr const char* kLeaseHolder = "certsteward-migrate";

  StoreMigration(ports::Store& from, ports::Store& to, const ports::Clock& clock)
      : from_(from), to_(to), clock_(clock) {}

  // Copies, then counts again in both. @return the report (complete = false when a count
  // differs: the report says which; `stopped` when a store failed part-way); an error, with
  // nothing copied, for the refusals above (failed_precondition) or a store that cannot be
  // read. `progress` hears a line per kind.
  domain::Result<MigrationReport> run(const std::function<void(const std::string&)>& progress = {});

 private:
  domain::Status preflight();
  domain::Status holdLeases();
  void releaseLeases();
  domain::Status copyEverything(MigrationReport& report);
  domain::Status copyAuditLog(MigrationReport& report);
  domain::Status countAgain(MigrationReport& report);

  ports::Store& from_;
  ports::Store& to_;
  const ports::Clock& clock_;
};

}  // namespace certsteward::services
