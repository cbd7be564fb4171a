// The tamper-evident audit log. Each entry carries two MACs under the audit signing key:
// - `checksum`, as docs/architecture.md (Audit chain) defines it: HMAC-SHA256 over the previous
// entry's checksum,
//   the entry id, the timestamp, the action and the resource type, so changing or removing an
//   entry breaks the chain at that point;
// - `mac`, HMAC-SHA256 over the canonical form of the whole entry (its checksum, sequence and
//   every other field), so changing the actor, resource, project, address, request id or
//   details of an entry is a break too.
// A truncated tail is found against a head recorded elsewhere (GET /audit-logs/head, and the
// checkpoint entries written every kAuditCheckpointInterval entries).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

struct AuditEntry {
  Id id;
  Timestamp timestamp{};
  std::string action;         // e.g. "certificate.create"
  std::string resource_type;  // e.g. "certificate"
  std::string resource_id;
  std::optional<Id> project_id;
  Id actor_user_id;  // empty for the system itself
  std::string actor_username;
  std::string ip;
  std::string request_id;
  std::string details;        // short, secret-free text
  std::string checksum;       // lower-case hex
  std::int64_t sequence = 0;  // position in the chain, assigned by the store (1, 2, ...)
  std::string mac;            // lower-case hex, over the whole entry (entryMac)
};

// Every this many entries the audit service appends an `audit.checkpoint` entry naming the head.
inline constexpr std::int64_t kAuditCheckpointInterval = 1000;

// Seals an entry onto the chain: sets its checksum (chained on the previous entry's) and its
// entry MAC. A store calls it inside its append, once the sequence and timestamp are final.
// Implemented with the audit signing key by AuditSealer (services/audit_sealer.hpp).
class AuditChainSealer {
 public:
  virtual ~AuditChainSealer() = default;
  virtual void seal(const std::string& previousChecksum, AuditEntry& entry) const = 0;
};

struct AuditBreak {
  Id entry_id;
  Timestamp timestamp{};
  std::string expected_checksum;
  std::string actual_checksum;
  // What broke: "checksum" (the chain), "entry_mac" (a field of the entry was changed),
  // "head_missing" (the chain ends before an expected head: truncated) or "head_mismatch" (the
  // entry at the expected head's position is not the one recorded).
  std::string reason = "checksum";
};

// A chain head recorded outside the log, to check the log against: its sequence and checksum.
struct AuditHead {
  std::int64_t sequence = 0;
  std::string checksum;
};

// The verify response (docs/api.md, POST /audit-logs/verify).
struct AuditVerification {
  std::int64_t verified = 0;
  bool intact = true;
  std::vector<AuditBreak> breaks;
  std::optional<Timestamp> next_since;  // nullopt when the chain has nothing further
};

// Timestamps along the chain strictly increase, so a verify page can resume at an exact
// `since`: an entry stamped at or before its predecessor is moved to 1 ms after it.
Timestamp chainTimestamp(Timestamp previous, Timestamp proposed) noexcept;

// Checks the chain against a head recorded earlier: `atHead` is the stored entry at
// head.sequence (nullopt when there is none). Appends a break to `result` when it is missing
// (the tail was cut) or differs.
void checkAuditHead(const AuditHead& head, const std::optional<AuditEntry>& atHead,
                    AuditVerification& result);

}  // namespace certsteward::domain
