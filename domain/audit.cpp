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

namespace {

void field(std::string& out, std::string_view value) {
  out += std::to_string(value.size());
  out += ':';
  out += value;
}

}  // namespace

std::string AuditSealer::entryMac(const AuditEntry& entry) const {
  std::string message;
  message.reserve(160 + entry.details.size() + entry.actor_username.size());
  message += "certsteward-audit-v1\n";
  field(message, std::to_string(entry.sequence));
  field(message, entry.checksum);  // covers id, timestamp, action, type and the predecessor
  field(message, entry.resource_id);
  message += entry.project_id ? 'p' : '-';
  field(message, entry.project_id.value_or(""));
  field(message, entry.actor_user_id);
  field(message, entry.actor_username);
  field(message, entry.ip);
  field(message, entry.request_id);
  field(message, entry.details);
  return toHex(mac_.sign(message));
}

void AuditSealer::seal(const std::string& previousChecksum, AuditEntry& entry) const {
  entry.checksum = checksum(previousChecksum, entry);
  entry.mac = entryMac(entry);
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

AuditVerification verifyAuditPage(const AuditSealer& sealer, std::string predecessorChecksum,
                                  std::span<const AuditEntry> page,
                                  std::optional<Timestamp> nextSince) {
  AuditVerification result;
  std::string previous = std::move(predecessorChecksum);
  for (const auto& entry : page) {
    std::string expected = sealer.checksum(previous, entry);
    if (expected != entry.checksum) {
      result.intact = false;
      result.breaks.push_back(
          AuditBreak{entry.id, entry.timestamp, expected, entry.checksum, "checksum"});
    } else if (std::string mac = sealer.entryMac(entry); mac != entry.mac) {
      result.intact = false;
      result.breaks.push_back(
          AuditBreak{entry.id, entry.timestamp, std::move(mac), entry.mac, "entry_mac"});
    }
    ++result.verified;
    previous = entry.checksum;
  }
  result.next_since = nextSince;
  return result;
}

}  // namespace certsteward::domain
