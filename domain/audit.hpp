// The tamper-evident audit log: each entry's checksum is HMAC-SHA256 over the previous entry's
// checksum, the entry id, the timestamp, the action and the resource type, so changing or
// removing an entry breaks the chain at that point.
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
};

// Computes checksums with the audit signing key held by a Mac.
class AuditSealer {
 public:
  explicit AuditSealer(const ports::Mac& mac) : mac_(mac) {}

  // hex(HMAC(key, previous ‖ id ‖ RFC 3339 timestamp ‖ action ‖ resource_type)); the first
  // entry's previous checksum is the empty string.
  std::string checksum(const std::string& previousChecksum, const AuditEntry& entry) const;

 private:
  const ports::Mac& mac_;
};

struct AuditBreak {
  Id entry_id;
  Timestamp timestamp{};
  std::string expected_checksum;
  std::string actual_checksum;
};

// The spec's verify response.
struct AuditVerification {
  std::int64_t verified = 0;
  bool intact = true;
  std::vector<AuditBreak> breaks;
  std::optional<Timestamp> next_since;  // nullopt when the chain has nothing further
};

// Verifies one page of the chain in order. Each entry is checked against the stored checksum
// of the entry before it (`predecessorChecksum` for the first), so one altered entry gives
// one break. `nextSince` is the timestamp of the first entry after the page, if any.
AuditVerification verifyAuditPage(const AuditSealer& sealer, std::string predecessorChecksum,
                                  std::span<const AuditEntry> page,
                                  std::optional<Timestamp> nextSince);

// Timestamps along the chain strictly increase, so a verify page can resume at an exact
// `since`: an entry stamped at or before its predecessor is moved to 1 ms after it.
Timestamp chainTimestamp(Timestamp previous, Timestamp proposed) noexcept;

std::string toHex(std::string_view bytes);

}  // namespace certsteward::domain
