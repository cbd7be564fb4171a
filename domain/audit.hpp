// The tamper-evident audit log. Each entry carries two MACs under the audit signing key:
// - `checksum`, exactly as the spec defines it: HMAC-SHA256 over the previous entry's checksum,
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
#include <span>
#include <string>
#include <vector>

#include "domain/id.hpp"
#include "domain/time.hpp"
#include "ports/mac.hpp"

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

// Computes checksums with the audit signing key held by a Mac.
class AuditSealer {
 public:
  explicit AuditSealer(const ports::Mac& mac) : mac_(mac) {}

  // hex(HMAC(key, previous ‖ id ‖ RFC 3339 timestamp ‖ action ‖ resource_type)); the first
  // entry's previous checksum is the empty string.
  std::string checksum(const std::string& previousChecksum, const AuditEntry& entry) const;

  // hex(HMAC(key, canonical form of the entry)): a version tag, the sequence, the checksum,
  // then every other field but `mac` length-prefixed in a fixed order (the optional project
  // marked present or absent). docs/architecture.md gives the exact bytes.
  std::string entryMac(const AuditEntry& entry) const;

  // The checks of verification, allocation-free: whether the stored checksum (chained on
  // `previousChecksum`) and the stored entry MAC are right. `scratch` is a reusable buffer.
  bool checksumMatches(std::string_view previousChecksum, const AuditEntry& entry,
                       std::string& scratch) const;
  bool entryMacMatches(const AuditEntry& entry, std::string& scratch) const;

  // Sets entry.checksum (chained on `previousChecksum`) and then entry.mac. Stores call it once
  // the sequence and timestamp are final.
  void seal(const std::string& previousChecksum, AuditEntry& entry) const;

 private:
  const ports::Mac& mac_;
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

// The spec's verify response.
struct AuditVerification {
  std::int64_t verified = 0;
  bool intact = true;
  std::vector<AuditBreak> breaks;
  std::optional<Timestamp> next_since;  // nullopt when the chain has nothing further
};

// Verifies one page of the chain in order. Each entry's checksum is checked against the stored
// checksum of the entry before it (`predecessorChecksum` for the first), so one altered entry
// gives one break, and its entry MAC against its own fields (reason "entry_mac"; one break per
// entry at most). `nextSince` is the timestamp of the first entry after the page, if any.
AuditVerification verifyAuditPage(const AuditSealer& sealer, std::string predecessorChecksum,
                                  std::span<const AuditEntry> page,
                                  std::optional<Timestamp> nextSince);

// Timestamps along the chain strictly increase, so a verify page can resume at an exact
// `since`: an entry stamped at or before its predecessor is moved to 1 ms after it.
Timestamp chainTimestamp(Timestamp previous, Timestamp proposed) noexcept;

// Checks the chain against a head recorded earlier: `atHead` is the stored entry at
// head.sequence (nullopt when there is none). Appends a break to `result` when it is missing
// (the tail was cut) or differs.
void checkAuditHead(const AuditHead& head, const std::optional<AuditEntry>& atHead,
                    AuditVerification& result);

}  // namespace certsteward::domain
