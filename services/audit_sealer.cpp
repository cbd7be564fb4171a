// Audit chain sealing and verification.
#include <certsteward/services/audit_sealer.hpp>

#include <array>
#include <cstring>

#include <certsteward/domain/encoding.hpp>

namespace certsteward::services {

namespace {

std::string hexOf(const unsigned char* bytes, std::size_t n) {
  return domain::toHex(std::string_view(reinterpret_cast<const char*>(bytes), n));
}

// Whether `hex` is the lower-case hex of the n bytes, without building a string.
bool hexEquals(const unsigned char* bytes, std::size_t n, std::string_view hex) {
  static constexpr char kHex[] = "0123456789abcdef";
  if (hex.size() != 2 * n) return false;
  unsigned diff = 0;
  for (std::size_t i = 0; i < n; ++i) {
    diff |= static_cast<unsigned>(hex[2 * i] ^ kHex[bytes[i] >> 4]);
    diff |= static_cast<unsigned>(hex[2 * i + 1] ^ kHex[bytes[i] & 0x0f]);
  }
  return diff == 0;
}

// Hex digit values, -1 for anything that is not a lower-case hex digit.
constexpr std::array<signed char, 256> kNibble = [] {
  std::array<signed char, 256> t{};
  for (auto& v : t)
    v = -1;
  for (int c = '0'; c <= '9'; ++c)
    t[static_cast<std::size_t>(c)] = static_cast<signed char>(c - '0');
  for (int c = 'a'; c <= 'f'; ++c)
    t[static_cast<std::size_t>(c)] = static_cast<signed char>(c - 'a' + 10);
  return t;
}();

int nibble(char c) {
  return kNibble[static_cast<unsigned char>(c)];
}

// Writes a length-prefixed field at `p`: the length as a base-128 varint, then the bytes.
char* field(char* p, std::string_view value) {
  std::size_t n = value.size();
  while (n >= 0x80) {
    *p++ = static_cast<char>((n & 0x7f) | 0x80);
    n >>= 7;
  }
  *p++ = static_cast<char>(n);
  if (!value.empty()) std::memcpy(p, value.data(), value.size());
  return p + value.size();
}

void checksumMessage(std::string& out, std::string_view previous, const domain::AuditEntry& entry) {
  out.clear();
  out += previous;
  out += entry.id;
  domain::appendTimestamp(out, entry.timestamp);
  out += entry.action;
  out += entry.resource_type;
}

// The canonical form of an entry (v1): the tag "A1", the sequence as 8 bytes big-endian, the
// checksum ('h' + its 32 bytes when it is 64 lower-case hex digits, else 't' + the text), then
// every other field length-prefixed, the optional project preceded by 'p' or '-'.
void entryMessage(std::string& out, const domain::AuditEntry& entry) {
  const std::string_view project =
      entry.project_id ? std::string_view(*entry.project_id) : std::string_view();
  const std::string_view fields[] = {entry.resource_id,    project,  entry.actor_user_id,
                                     entry.actor_username, entry.ip, entry.request_id,
                                     entry.details};
  std::size_t most = 2 + 8 + 1 + 10 + entry.checksum.size() + 1;
  for (const auto f : fields)
    most += 10 + f.size();
  out.resize(most);
  char* p = out.data();
  *p++ = 'A';
  *p++ = '1';
  const auto seq = static_cast<std::uint64_t>(entry.sequence);
  for (int shift = 56; shift >= 0; shift -= 8)
    *p++ = static_cast<char>((seq >> shift) & 0xff);
  const std::string& sum = entry.checksum;
  bool hex = sum.size() == 64;
  for (std::size_t i = 0; hex && i < 64; ++i)
    hex = nibble(sum[i]) >= 0;
  if (hex) {
    *p++ = 'h';
    for (std::size_t i = 0; i < 64; i += 2)
      *p++ = static_cast<char>(nibble(sum[i]) << 4 | nibble(sum[i + 1]));
  } else {
    *p++ = 't';
    p = field(p, sum);
  }
  p = field(p, fields[0]);
  *p++ = entry.project_id ? 'p' : '-';
  for (std::size_t i = 1; i < std::size(fields); ++i)
    p = field(p, fields[i]);
  out.resize(static_cast<std::size_t>(p - out.data()));
}

}  // namespace

std::string AuditSealer::checksum(const std::string& previousChecksum,
                                  const domain::AuditEntry& entry) const {
  std::string message;
  message.reserve(192);
  checksumMessage(message, previousChecksum, entry);
  unsigned char out[64];
  return hexOf(out, mac_.signInto(message, out));
}

std::string AuditSealer::entryMac(const domain::AuditEntry& entry) const {
  std::string message;
  message.reserve(256);
  entryMessage(message, entry);
  unsigned char out[64];
  return hexOf(out, mac_.signInto(message, out));
}

bool AuditSealer::checksumMatches(std::string_view previousChecksum,
                                  const domain::AuditEntry& entry, std::string& scratch) const {
  checksumMessage(scratch, previousChecksum, entry);
  unsigned char out[64];
  return hexEquals(out, mac_.signInto(scratch, out), entry.checksum);
}

bool AuditSealer::entryMacMatches(const domain::AuditEntry& entry, std::string& scratch) const {
  entryMessage(scratch, entry);
  unsigned char out[64];
  return hexEquals(out, mac_.signInto(scratch, out), entry.mac);
}

void AuditSealer::seal(const std::string& previousChecksum, domain::AuditEntry& entry) const {
  entry.checksum = checksum(previousChecksum, entry);
  entry.mac = entryMac(entry);
}

domain::AuditVerification verifyAuditPage(const AuditSealer& sealer,
                                          std::string predecessorChecksum,
                                          std::span<const domain::AuditEntry> page,
                                          std::optional<domain::Timestamp> nextSince) {
  domain::AuditVerification result;
  std::string_view previous = predecessorChecksum;
  std::string scratch;  // one message buffer for the whole page
  scratch.reserve(512);
  for (const auto& entry : page) {
    if (!sealer.checksumMatches(previous, entry, scratch)) {
      result.intact = false;
      result.breaks.push_back(domain::AuditBreak{entry.id, entry.timestamp,
                                                 sealer.checksum(std::string(previous), entry),
                                                 entry.checksum, "checksum"});
    } else if (!sealer.entryMacMatches(entry, scratch)) {
      result.intact = false;
      result.breaks.push_back(domain::AuditBreak{entry.id, entry.timestamp, sealer.entryMac(entry),
                                                 entry.mac, "entry_mac"});
    }
    ++result.verified;
    previous = entry.checksum;
  }
  result.next_since = nextSince;
  return result;
}

}  // namespace certsteward::services
