// AuditSealer: the audit chain's two MACs under the audit signing key (held by a Mac port), and
// verification of a page of the chain. The entry, its breaks and heads are the model's
// (domain/audit.hpp); the exact bytes are in docs/architecture.md.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <certsteward/domain/audit.hpp>
#include <certsteward/ports/mac.hpp>

namespace certsteward::services {

class AuditSealer : public domain::AuditChainSealer {
 public:
  explicit AuditSealer(const ports::Mac& mac) : mac_(mac) {}

  // hex(HMAC(key, previous ‖ id ‖ RFC 3339 timestamp ‖ action ‖ resource_type)); the first
  // entry's previous checksum is the empty string.
  std::string checksum(const std::string& previousChecksum, const domain::AuditEntry& entry) const;

  // hex(HMAC(key, canonical form of the entry)): a version tag, the sequence, the checksum,
  // then every other field but `mac` length-prefixed in a fixed order (the optional project
  // marked present or absent). docs/architecture.md gives the exact bytes.
  std::string entryMac(const domain::AuditEntry& entry) const;

  // The checks of verification, allocation-free: whether the stored checksum (chained on
  // `previousChecksum`) and the stored entry MAC are right. `scratch` is a reusable buffer.
  bool checksumMatches(std::string_view previousChecksum, const domain::AuditEntry& entry,
                       std::string& scratch) const;
  bool entryMacMatches(const domain::AuditEntry& entry, std::string& scratch) const;

  // Sets entry.checksum (chained on `previousChecksum`) and then entry.mac. Stores call it once
  // the sequence and timestamp are final.
  void seal(const std::string& previousChecksum, domain::AuditEntry& entry) const override;

 private:
  const ports::Mac& mac_;
};

// Verifies one page of the chain in order. Each entry's checksum is checked against the stored
// checksum of the entry before it (`predecessorChecksum` for the first), so one altered entry
// gives one break, and its entry MAC against its own fields (reason "entry_mac"; one break per
// entry at most). `nextSince` is the timestamp of the first entry after the page, if any.
domain::AuditVerification verifyAuditPage(const AuditSealer& sealer,
                                          std::string predecessorChecksum,
                                          std::span<const domain::AuditEntry> page,
                                          std::optional<domain::Timestamp> nextSince);

}  // namespace certsteward::services
