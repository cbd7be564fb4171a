// UTF-8 and header-text helpers of the channel senders.
#include <certsteward/adapters/notify/channel_text.hpp>

#include <cstdint>

namespace certsteward::adapters::notify {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
constexpr std::string_view kEllipsis = "\xE2\x80\xA6";     // U+2026 "…"

// The length of the UTF-8 sequence at `text[at]`, 0 when it is not a valid one.
std::size_t sequenceAt(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(text[at + i]); };
  const std::uint8_t lead = byte(0);
  std::size_t length = 0;
  std::uint32_t min = 0;
  std::uint32_t cp = 0;
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) {
    length = 2;
    min = 0x80;
    cp = lead & 0x1Fu;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3;
    min = 0x800;
    cp = lead & 0x0Fu;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4;
    min = 0x10000;
    cp = lead & 0x07u;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i) & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return length;
}

bool isTokenChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= '0' && u <= '9') return true;
  if ((u | 0x20) >= 'a' && (u | 0x20) <= 'z') return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

}  // namespace

std::string validUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length = sequenceAt(text, at);
    if (length == 0) {
      out += kReplacement;
      ++at;
    } else {
      out.append(text.substr(at, length));
      at += length;
    }
  }
  return out;
}

std::string truncateUtf16(std::string_view text, std::size_t maxUnits) {
  if (maxUnits == 0) return {};
  const std::string valid = validUtf8(text);
  std::size_t units = 0;
  std::size_t cut = std::string::npos;  // where the text ends when the ellipsis is added
  for (std::size_t at = 0; at < valid.size();) {
    const std::size_t length = sequenceAt(valid, at);
    const std::size_t width = length == 4 ? 2 : 1;
    if (cut == std::string::npos && units + width > maxUnits - 1) cut = at;
    if (units + width > maxUnits) return valid.substr(0, cut) + std::string(kEllipsis);
    units += width;
    at += length;
  }
  return valid;
}

std::string excerpt(std::string_view text, std::size_t maxChars) {
  const std::string valid = validUtf8(text);
  std::string out;
  std::size_t chars = 0;
  for (std::size_t at = 0; at < valid.size() && chars < maxChars; ++chars) {
    const std::size_t length = sequenceAt(valid, at);
    const auto lead = static_cast<unsigned char>(valid[at]);
    if (length == 1 && (lead < 0x20 || lead == 0x7F)) {
      out += ' ';
    } else if (length == 2 && lead == 0xC2 && static_cast<unsigned char>(valid[at + 1]) < 0xA0) {
      out += ' ';  // C1 controls
    } else {
      out.append(valid, at, length);
    }
    at += length;
  }
  return std::string(trimmed(out));
}

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::string tokenOnly(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (isTokenChar(c)) out += c;
  }
  return out;
}

bool hasControl(std::string_view text) {
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && u != '\t') || u == 0x7F) return true;
  }
  return false;
}

}  // namespace certsteward::adapters::notify
