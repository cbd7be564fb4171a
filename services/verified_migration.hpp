// VerifiedMigration: `certsteward migrate` as one use case. The source's audit chain must verify
// with this configuration's audit key before anything is copied (else the copy could not be
// verified either); then StoreMigration copies and counts again; then the copied chain is
// verified in the target as `certsteward audit verify` would, against the source's head. The
// report's verdict says how it ended; the command only prints it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include <certsteward/domain/audit.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/store.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/store_migration.hpp>

namespace certsteward::services {

struct VerifiedMigrationReport {
  enum class Verdict {
    source_chain_broken,  // nothing was copied
    stopped,              // the copy stopped part-way: copy.stopped says why
    target_chain_broken,  // copied, but the chain does not verify in the target
    incomplete,           // a count differs, or the chain's head
    complete,
  };
  Verdict verdict = Verdict::complete;
  std::size_t source_breaks = 0;     // source_chain_broken
  MigrationReport copy;              // from `stopped` on
  domain::AuditVerification target;  // from target_chain_broken on
  bool counts_differ = false;        // incomplete: a count (else the chain's head)
};

class VerifiedMigration {
 public:
  // One side: its store and the audit service over it (with this configuration's audit key).
  struct Side {
    ports::Store& store;
    AuditService& audit;
  };
  // The target is opened only once the source's chain verified (opening may create it).
  using OpenTarget = std::function<domain::Result<Side>()>;
  VerifiedMigration(Side from, OpenTarget to, const ports::Clock& clock)
      : from_(from), openTarget_(std::move(to)), clock_(clock) {}

  // An error (its message starting "--from: " or "--to: " for a store that cannot be read, or
  // ending "; nothing was copied" for StoreMigration's refusals) when nothing could be decided;
  // the report otherwise. `progress` hears a line per kind copied.
  domain::Result<VerifiedMigrationReport> run(
      const std::function<void(const std::string&)>& progress);

 private:
  Side from_;
  OpenTarget openTarget_;
  const ports::Clock& clock_;
};

}  // namespace certsteward::services
