// Audit chain sealing and verification.
#include "domain/audit.hpp"

namespace certsteward::domain {

std::string toHex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 0x0f]);
  }
  return out;
}

Timestamp chainTimestamp(Timestamp previous, Timestamp proposed) noexcept {
  return proposed > previous ? proposed : previous + Duration{1};
}

std::string AuditSealer::checksum(const std::string& previousChecksum,
                                  const AuditEntry& entry) const {
  std::string message;
  message.reserve(previousChecksum.size() + entry.id.size() + 24 + entry.action.size() +
                  entry.resource_type.size());
  message += previousChecksum;
  message += entry.id;
  message += formatTimestamp(entry.timestamp);
  message += entry.action;
  message += entry.resource_type;
  return toHex(mac_.sign(message));
}

AuditVerification verifyAuditPage(const AuditSealer& sealer, std::string predecessorChecksum,
                                  std::span<const AuditEntry> page,
                                  std::optional<Timestamp> nextSince) {
  AuditVerification result;
  std::string previous = std::move(predecessorChecksum);
  for (const auto& entry : page) {
    std::string expected = sealer.checksum(previous, entry);
    if (expected != entry.checksum) {
      result.intact = false;
      result.breaks.push_back(AuditBreak{entry.id, entry.timestamp, expected, entry.checksum});
    }
    ++result.verified;
    previous = entry.checksum;
  }
  result.next_since = nextSince;
  return result;
}

}  // namespace certsteward::domain
