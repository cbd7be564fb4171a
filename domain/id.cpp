// ObjectId-layout ids.
#include <certsteward/domain/id.hpp>

namespace certsteward::domain {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void appendHex(std::string& out, std::uint8_t byte) {
  out.push_back(kHex[byte >> 4]);
  out.push_back(kHex[byte & 0x0f]);
}

}  // namespace

bool isValidId(std::string_view text) noexcept {
  if (text.size() != kIdLength) return false;
  for (const char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

Id makeObjectId(Timestamp created, const std::array<std::uint8_t, 5>& processRandom,
                std::uint32_t counter) {
  const auto seconds = static_cast<std::uint32_t>(unixSeconds(created));
  Id out;
  out.reserve(kIdLength);
  for (int shift = 24; shift >= 0; shift -= 8)
    appendHex(out, (seconds >> shift) & 0xff);
  for (const auto b : processRandom)
    appendHex(out, b);
  for (int shift = 16; shift >= 0; shift -= 8)
    appendHex(out, (counter >> shift) & 0xff);
  return out;
}

Timestamp idTimestamp(std::string_view id) {
  std::uint32_t seconds = 0;
  for (std::size_t i = 0; i < 8 && i < id.size(); ++i) {
    const char c = id[i];
    const std::uint32_t nibble =
        c >= 'a' ? static_cast<std::uint32_t>(c - 'a' + 10) : static_cast<std::uint32_t>(c - '0');
    seconds = (seconds << 4) | (nibble & 0x0f);
  }
  return fromUnixSeconds(seconds);
}

}  // namespace certsteward::domain
