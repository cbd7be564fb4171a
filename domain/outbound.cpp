// Address literals, CIDR ranges and the classes the outbound policy refuses by default.
#include <certsteward/domain/outbound.hpp>

#include <charconv>

#include <certsteward/domain/enum_names.hpp>

namespace certsteward::domain {

namespace {

using CP = std::pair<AddressClass, std::string_view>;
constexpr auto kClassNames = makeEnumNames<AddressClass>(
    CP{AddressClass::global, "global"}, CP{AddressClass::unspecified, "unspecified"},
    CP{AddressClass::loopback, "loopback"}, CP{AddressClass::link_local, "link-local"},
    CP{AddressClass::private_range, "private"}, CP{AddressClass::unique_local, "unique-local"},
    CP{AddressClass::cgnat, "shared (CGNAT)"}, CP{AddressClass::multicast, "multicast"},
    CP{AddressClass::reserved, "reserved"});

IpAddress fromV4(std::uint32_t value) {
  IpAddress out;
  out.v4 = true;
  out.bytes[10] = 0xff;
  out.bytes[11] = 0xff;
  out.bytes[12] = static_cast<std::uint8_t>(value >> 24);
  out.bytes[13] = static_cast<std::uint8_t>(value >> 16);
  out.bytes[14] = static_cast<std::uint8_t>(value >> 8);
  out.bytes[15] = static_cast<std::uint8_t>(value);
  return out;
}

std::uint32_t v4Value(const std::array<std::uint8_t, 16>& b, std::size_t at) {
  return (std::uint32_t{b[at]} << 24) | (std::uint32_t{b[at + 1]} << 16) |
         (std::uint32_t{b[at + 2]} << 8) | std::uint32_t{b[at + 3]};
}

// Dotted quad, four decimal parts of at most three digits, each 0..255 (no leading '+').
std::optional<std::uint32_t> strictV4(std::string_view text) {
  std::uint32_t value = 0;
  int parts = 0;
  std::size_t from = 0;
  for (;;) {
    const std::size_t dot = std::min(text.find('.', from), text.size());
    const std::string_view part = text.substr(from, dot - from);
    unsigned number = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), number);
    if (part.empty() || part.size() > 3 || ec != std::errc{} || end != part.data() + part.size() ||
        number > 255 || ++parts > 4) {
      return std::nullopt;
    }
    value = (value << 8) | number;
    if (dot == text.size()) break;
    from = dot + 1;
  }
  if (parts != 4) return std::nullopt;
  return value;
}

// One part of inet_aton's forms: decimal, 0x hex, or 0 octal.
std::optional<std::uint64_t> loosePart(std::string_view part) {
  if (part.empty()) return std::nullopt;
  int base = 10;
  if (part.size() > 1 && part[0] == '0' && (part[1] == 'x' || part[1] == 'X')) {
    base = 16;
    part.remove_prefix(2);
    if (part.empty()) return std::uint64_t{0};  // "0x" reads as 0
  } else if (part.size() > 1 && part[0] == '0') {
    base = 8;
    part.remove_prefix(1);
  }
  if (part.size() > 16) return std::nullopt;
  std::uint64_t number = 0;
  const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), number, base);
  if (ec != std::errc{} || end != part.data() + part.size()) return std::nullopt;
  return number;
}

// inet_aton: a, a.b (b 24 bits), a.b.c (c 16 bits), a.b.c.d.
std::optional<std::uint32_t> looseV4(std::string_view text) {
  std::vector<std::uint64_t> parts;
  std::size_t from = 0;
  for (;;) {
    const std::size_t dot = std::min(text.find('.', from), text.size());
    const auto part = loosePart(text.substr(from, dot - from));
    if (!part) return std::nullopt;
    parts.push_back(*part);
    if (parts.size() > 4) return std::nullopt;
    if (dot == text.size()) break;
    from = dot + 1;
  }
  const std::size_t n = parts.size();
  const int lastBits = 32 - 8 * static_cast<int>(n - 1);
  if (parts.back() >= (std::uint64_t{1} << lastBits)) return std::nullopt;
  std::uint64_t value = parts.back();
  for (std::size_t i = 0; i + 1 < n; ++i) {
    if (parts[i] > 255) return std::nullopt;
    value |= parts[i] << (24 - 8 * static_cast<int>(i));
  }
  return static_cast<std::uint32_t>(value);
}

std::optional<IpAddress> parseV6(std::string_view text) {
  if (text.empty() || text.find('%') != std::string_view::npos) return std::nullopt;
  std::array<std::uint16_t, 8> groups{};
  int count = 0;
  int gap = -1;  // where "::" stands, in groups
  std::size_t at = 0;
  if (text.starts_with("::")) {
    gap = 0;
    at = 2;
    if (text.size() == 2) return IpAddress{};
  } else if (text.front() == ':') {
    return std::nullopt;
  }
  while (at < text.size()) {
    const std::size_t colon = std::min(text.find(':', at), text.size());
    const std::string_view part = text.substr(at, colon - at);
    if (part.find('.') != std::string_view::npos) {  // a trailing dotted quad
      if (colon != text.size() || count > 6) return std::nullopt;
      const auto v4 = strictV4(part);
      if (!v4) return std::nullopt;
      groups[static_cast<std::size_t>(count++)] = static_cast<std::uint16_t>(*v4 >> 16);
      groups[static_cast<std::size_t>(count++)] = static_cast<std::uint16_t>(*v4 & 0xffff);
      at = text.size();
      break;
    }
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value, 16);
    if (part.empty() || part.size() > 4 || ec != std::errc{} || end != part.data() + part.size() ||
        count == 8) {
      return std::nullopt;
    }
    groups[static_cast<std::size_t>(count++)] = static_cast<std::uint16_t>(value);
    if (colon == text.size()) {
      at = colon;
      break;
    }
    if (colon + 1 < text.size() && text[colon + 1] == ':') {
      if (gap >= 0) return std::nullopt;  // a second "::"
      gap = count;
      at = colon + 2;
      if (at == text.size()) break;
    } else {
      at = colon + 1;
      if (at == text.size()) return std::nullopt;  // a trailing single ':'
    }
  }
  if (gap < 0 && count != 8) return std::nullopt;
  if (gap >= 0 && count > 7) return std::nullopt;
  std::array<std::uint16_t, 8> full{};
  if (gap < 0) {
    full = groups;
  } else {
    const int tail = count - gap;
    for (int i = 0; i < gap; ++i)
      full[static_cast<std::size_t>(i)] = groups[static_cast<std::size_t>(i)];
    for (int i = 0; i < tail; ++i)
      full[static_cast<std::size_t>(8 - tail + i)] = groups[static_cast<std::size_t>(gap + i)];
  }
  IpAddress out;
  for (std::size_t i = 0; i < 8; ++i) {
    out.bytes[2 * i] = static_cast<std::uint8_t>(full[i] >> 8);
    out.bytes[2 * i + 1] = static_cast<std::uint8_t>(full[i] & 0xff);
  }
  // An IPv4-mapped address is that IPv4 address.
  bool mapped = out.bytes[10] == 0xff && out.bytes[11] == 0xff;
  for (std::size_t i = 0; i < 10; ++i)
    mapped = mapped && out.bytes[i] == 0;
  out.v4 = false;
  if (mapped) return fromV4(v4Value(out.bytes, 12));
  return out;
}

bool inV4(std::uint32_t value, std::uint32_t base, int bits) {
  const std::uint32_t mask = bits == 0 ? 0 : ~std::uint32_t{0} << (32 - bits);
  return (value & mask) == (base & mask);
}

constexpr std::uint32_t v4(unsigned a, unsigned b, unsigned c, unsigned d) {
  return (a << 24) | (b << 16) | (c << 8) | d;
}

AddressClass classifyV4(std::uint32_t a) {
  if (inV4(a, v4(0, 0, 0, 0), 8)) return AddressClass::unspecified;
  if (inV4(a, v4(127, 0, 0, 0), 8)) return AddressClass::loopback;
  if (inV4(a, v4(169, 254, 0, 0), 16)) return AddressClass::link_local;
  if (inV4(a, v4(10, 0, 0, 0), 8) || inV4(a, v4(172, 16, 0, 0), 12) ||
      inV4(a, v4(192, 168, 0, 0), 16)) {
    return AddressClass::private_range;
  }
  if (inV4(a, v4(100, 64, 0, 0), 10)) return AddressClass::cgnat;
  if (inV4(a, v4(224, 0, 0, 0), 4)) return AddressClass::multicast;
  if (inV4(a, v4(240, 0, 0, 0), 4) || inV4(a, v4(192, 0, 0, 0), 24) ||
      inV4(a, v4(192, 0, 2, 0), 24) || inV4(a, v4(198, 18, 0, 0), 15) ||
      inV4(a, v4(198, 51, 100, 0), 24) || inV4(a, v4(203, 0, 113, 0), 24)) {
    return AddressClass::reserved;  // 240/4 holds 255.255.255.255
  }
  return AddressClass::global;
}

}  // namespace

std::optional<IpAddress> parseIpAddress(std::string_view text) {
  if (const auto value = strictV4(text)) return fromV4(*value);
  if (text.find(':') != std::string_view::npos) return parseV6(text);
  return std::nullopt;
}

std::optional<IpAddress> parseAddressLiteral(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    return parseV6(host.substr(1, host.size() - 2));
  }
  if (host.find(':') != std::string_view::npos) return parseV6(host);
  if (host.ends_with(".")) host.remove_suffix(1);  // "127.0.0.1." resolves as the address
  if (const auto value = looseV4(host)) return fromV4(*value);
  return std::nullopt;
}

std::string formatIpAddress(const IpAddress& address) {
  const auto& b = address.bytes;
  if (address.v4) {
    return std::to_string(b[12]) + "." + std::to_string(b[13]) + "." + std::to_string(b[14]) + "." +
           std::to_string(b[15]);
  }
  // RFC 5952: the longest run (of two or more) of zero groups becomes "::".
  std::array<unsigned, 8> g{};
  for (std::size_t i = 0; i < 8; ++i)
    g[i] = (unsigned{b[2 * i]} << 8) | b[2 * i + 1];
  int bestAt = -1;
  int bestLength = 1;
  for (int i = 0; i < 8;) {
    int j = i;
    while (j < 8 && g[static_cast<std::size_t>(j)] == 0)
      ++j;
    if (j - i > bestLength) {
      bestAt = i;
      bestLength = j - i;
    }
    i = j == i ? i + 1 : j;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  const auto hex = [&](unsigned v) {
    std::string s;
    bool started = false;
    for (int shift = 12; shift >= 0; shift -= 4) {
      const unsigned digit = (v >> shift) & 0xf;
      if (digit != 0 || started || shift == 0) {
        s += kHex[digit];
        started = true;
      }
    }
    return s;
  };
  std::string out;
  for (int i = 0; i < 8; ++i) {
    if (i == bestAt) {
      out += "::";
      i += bestLength - 1;
      continue;
    }
    if (!out.empty() && out.back() != ':') out += ':';
    out += hex(g[static_cast<std::size_t>(i)]);
  }
  return out;
}

bool Cidr::contains(const IpAddress& address) const {
  if (base.v4 != address.v4) return false;
  int remaining = base.v4 ? bits + 96 : bits;
  for (std::size_t i = 0; i < 16 && remaining > 0; ++i, remaining -= 8) {
    const auto mask = static_cast<std::uint8_t>(remaining >= 8 ? 0xff : 0xff << (8 - remaining));
    if ((address.bytes[i] & mask) != (base.bytes[i] & mask)) return false;
  }
  return true;
}

std::optional<Cidr> parseCidr(std::string_view text) {
  const auto slash = text.find('/');
  const auto address = parseIpAddress(text.substr(0, slash));
  if (!address) return std::nullopt;
  const int limit = address->v4 ? 32 : 128;
  int bits = limit;
  if (slash != std::string_view::npos) {
    const std::string_view b = text.substr(slash + 1);
    const auto [end, ec] = std::from_chars(b.data(), b.data() + b.size(), bits);
    if (b.empty() || b.size() > 3 || ec != std::errc{} || end != b.data() + b.size() || bits < 0 ||
        bits > limit) {
      return std::nullopt;
    }
  }
  Cidr out{*address, bits};
  int keep = address->v4 ? bits + 96 : bits;
  for (std::size_t i = 0; i < 16; ++i, keep -= 8) {
    if (keep >= 8) continue;
    out.base.bytes[i] &= static_cast<std::uint8_t>(keep <= 0 ? 0 : 0xff << (8 - keep));
  }
  if (address->v4) {  // the ::ffff prefix stays
    out.base.bytes[10] = 0xff;
    out.base.bytes[11] = 0xff;
  }
  return out;
}

AddressClass classify(const IpAddress& address) {
  const auto& b = address.bytes;
  if (address.v4) return classifyV4(v4Value(b, 12));
  const auto zeroUpTo = [&](std::size_t n) {
    for (std::size_t i = 0; i < n; ++i)
      if (b[i] != 0) return false;
    return true;
  };
  if (zeroUpTo(16)) return AddressClass::unspecified;
  if (zeroUpTo(15) && b[15] == 1) return AddressClass::loopback;
  // IPv4-compatible (::a.b.c.d, deprecated) and NAT64 (64:ff9b::/96) reach an IPv4 address.
  if (zeroUpTo(12)) return classifyV4(v4Value(b, 12));
  if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b) {
    bool wellKnown = true;
    for (std::size_t i = 4; i < 12; ++i)
      wellKnown = wellKnown && b[i] == 0;
    if (wellKnown) return classifyV4(v4Value(b, 12));
  }
  if (b[0] == 0x20 && b[1] == 0x02) return classifyV4(v4Value(b, 2));  // 6to4
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return AddressClass::link_local;
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return AddressClass::reserved;  // site-local
  if ((b[0] & 0xfe) == 0xfc) return AddressClass::unique_local;
  if (b[0] == 0xff) return AddressClass::multicast;
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) return AddressClass::reserved;
  if (b[0] == 0x01 && b[1] == 0 && b[2] == 0 && b[3] == 0 && b[4] == 0 && b[5] == 0 && b[6] == 0 &&
      b[7] == 0) {
    return AddressClass::reserved;  // 100::/64, discard-only
  }
  return AddressClass::global;
}

std::string_view nameOf(AddressClass kind) {
  return kClassNames.name(kind);
}

bool OutboundPolicy::permits(const IpAddress& address) const {
  for (const auto& range : allowed_) {
    if (range.contains(address)) return true;
  }
  return classify(address) == AddressClass::global;
}

}  // namespace certsteward::domain
