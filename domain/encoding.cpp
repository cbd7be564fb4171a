// Hex, base64 and base64url.
#include <certsteward/domain/encoding.hpp>

#include <array>

namespace certsteward::domain {
namespace {

constexpr char kHex[] = "0123456789abcdef";
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kBase64Url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int hexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string encode(std::string_view in, const char* alphabet, bool pad) {
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= in.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16 |
                       static_cast<unsigned char>(in[i + 1]) << 8 |
                       static_cast<unsigned char>(in[i + 2]);
    out += alphabet[v >> 18 & 63];
    out += alphabet[v >> 12 & 63];
    out += alphabet[v >> 6 & 63];
    out += alphabet[v & 63];
  }
  const std::size_t rest = in.size() - i;
  if (rest > 0) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (rest == 2) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += alphabet[v >> 18 & 63];
    out += alphabet[v >> 12 & 63];
    if (rest == 2) out += alphabet[v >> 6 & 63];
    if (pad) out.append(rest == 1 ? 2 : 1, '=');
  }
  return out;
}

std::array<signed char, 256> table(const char* alphabet) {
  std::array<signed char, 256> t{};
  t.fill(-1);
  for (int i = 0; i < 64; ++i)
    t[static_cast<unsigned char>(alphabet[i])] = static_cast<signed char>(i);
  return t;
}

// Decodes unpadded text; nullopt for a foreign character, an impossible length, or set bits
// after the last byte (non-canonical).
std::optional<std::string> decode(std::string_view in, const std::array<signed char, 256>& t) {
  if (in.size() % 4 == 1) return std::nullopt;
  std::string out;
  out.reserve(in.size() * 3 / 4);
  unsigned buffer = 0;
  int bits = 0;
  for (const char c : in) {
    const int v = t[static_cast<unsigned char>(c)];
    if (v < 0) return std::nullopt;
    buffer = (buffer << 6 | static_cast<unsigned>(v)) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>(buffer >> bits & 0xff);
    }
  }
  if ((buffer & ((1u << bits) - 1)) != 0) return std::nullopt;
  return out;
}

}  // namespace

std::string toHex(std::string_view bytes) {
  std::string out(bytes.size() * 2, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = kHex[b >> 4];
    out[2 * i + 1] = kHex[b & 0x0f];
  }
  return out;
}

std::optional<std::string> fromHex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::string out(text.size() / 2, '\0');
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = hexValue(text[2 * i]);
    const int lo = hexValue(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<char>(hi << 4 | lo);
  }
  return out;
}

std::string base64Encode(std::string_view bytes) {
  return encode(bytes, kBase64, true);
}

std::optional<std::string> base64Decode(std::string_view text) {
  static const auto t = table(kBase64);
  if (text.size() % 4 != 0) return std::nullopt;
  std::size_t pad = 0;
  while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=')
    ++pad;
  return decode(text.substr(0, text.size() - pad), t);
}

std::string base64UrlEncode(std::string_view bytes) {
  return encode(bytes, kBase64Url, false);
}

bool isAcmeToken(std::string_view text) noexcept {
  if (text.empty() || text.size() > 256) return false;
  for (const char c : text) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::optional<std::string> base64UrlDecode(std::string_view text) {
  static const auto t = table(kBase64Url);
  return decode(text, t);
}

std::string percentEncode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || u == '-' ||
        u == '.' || u == '_' || u == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 0x0f]);
    }
  }
  return out;
}

namespace {

// Whether `der` is one DER SEQUENCE (tag 0x30) whose length octets say exactly its size.
bool derSequence(std::string_view der) {
  if (der.size() < 2 || static_cast<unsigned char>(der[0]) != 0x30) return false;
  const auto first = static_cast<unsigned char>(der[1]);
  std::size_t length = first;
  std::size_t header = 2;
  if (first & 0x80) {
    const std::size_t octets = first & 0x7f;
    if (octets == 0 || octets > 3 || der.size() < 2 + octets) return false;
    length = 0;
    for (std::size_t i = 0; i < octets; ++i)
      length = (length << 8) | static_cast<unsigned char>(der[2 + i]);
    header += octets;
  }
  return header + length == der.size();
}

}  // namespace

std::string pemCertificatesProblem(std::string_view bundle) {
  static constexpr std::string_view kBegin = "-----BEGIN CERTIFICATE-----";
  static constexpr std::string_view kEnd = "-----END CERTIFICATE-----";
  if (bundle.size() > 65536) return "must be at most 64 KiB";
  int count = 0;
  std::size_t at = 0;
  for (;;) {
    const std::size_t begin = bundle.find(kBegin, at);
    // Text between blocks (a bundle's comments, "Name\n=====" headers) is read past, as
    // OpenSSL reads past it; another PEM block (a key) is not.
    const std::string_view between =
        bundle.substr(at, begin == std::string_view::npos ? std::string_view::npos : begin - at);
    if (between.find("-----BEGIN ") != std::string_view::npos) {
      return "holds a PEM block that is not a certificate";
    }
    if (begin == std::string_view::npos) break;
    const std::size_t bodyFrom = begin + kBegin.size();
    const std::size_t end = bundle.find(kEnd, bodyFrom);
    if (end == std::string_view::npos) return "has a certificate block without its END line";
    std::string base64;
    for (const char c : bundle.substr(bodyFrom, end - bodyFrom)) {
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
      base64 += c;
    }
    const auto der = base64Decode(base64);
    if (!der || !derSequence(*der)) return "has a certificate block that is not a certificate";
    if (++count > 100) return "must hold at most 100 certificates";
    at = end + kEnd.size();
  }
  if (count == 0) return "must hold PEM certificates (-----BEGIN CERTIFICATE-----)";
  return {};
}

}  // namespace certsteward::domain
