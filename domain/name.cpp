// The name rule.
#include <certsteward/domain/name.hpp>

#include <cstdint>

namespace certsteward::domain {
namespace {

bool forbidden(std::uint32_t cp) {
  if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) return true;  // C0, DEL, C1
  if (cp == 0x061c || cp == 0x200e || cp == 0x200f) return true;           // marks
  if (cp >= 0x202a && cp <= 0x202e) return true;                           // embeddings
  if (cp >= 0x2066 && cp <= 0x2069) return true;                           // isolates
  return cp == 0xfeff;
}

}  // namespace

bool isValidName(std::string_view name) noexcept {
  if (name.empty() || name.front() == ' ' || name.back() == ' ') return false;
  std::size_t characters = 0;
  for (std::size_t i = 0; i < name.size();) {
    const auto b0 = static_cast<unsigned char>(name[i]);
    std::uint32_t cp = 0;
    std::size_t length = 0;
    if (b0 < 0x80) {
      cp = b0;
      length = 1;
    } else if ((b0 & 0xe0) == 0xc0) {
      cp = b0 & 0x1f;
      length = 2;
    } else if ((b0 & 0xf0) == 0xe0) {
      cp = b0 & 0x0f;
      length = 3;
    } else if ((b0 & 0xf8) == 0xf0) {
      cp = b0 & 0x07;
      length = 4;
    } else {
      return false;
    }
    if (i + length > name.size()) return false;
    for (std::size_t k = 1; k < length; ++k) {
      const auto b = static_cast<unsigned char>(name[i + k]);
      if ((b & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (b & 0x3f);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    static constexpr std::uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[length] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return false;
    if (forbidden(cp)) return false;
    if (++characters > kMaxNameCharacters) return false;
    i += length;
  }
  return true;
}

}  // namespace certsteward::domain
