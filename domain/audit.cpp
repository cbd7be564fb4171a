// The audit chain's rules that need no key: timestamps along the chain, and a head check.
#include <certsteward/domain/audit.hpp>

namespace certsteward::domain {

Timestamp chainTimestamp(Timestamp previous, Timestamp proposed) noexcept {
  return proposed > previous ? proposed : previous + Duration{1};
}

void checkAuditHead(const AuditHead& head, const std::optional<AuditEntry>& atHead,
                    AuditVerification& result) {
  if (!atHead) {
    result.intact = false;
    result.breaks.push_back(AuditBreak{"", {}, head.checksum, "", "head_missing"});
    return;
  }
  if (atHead->checksum != head.checksum) {
    result.intact = false;
    result.breaks.push_back(AuditBreak{atHead->id, atHead->timestamp, head.checksum,
                                       atHead->checksum, "head_mismatch"});
  }
}

}  // namespace certsteward::domain
