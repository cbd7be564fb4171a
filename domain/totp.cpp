// RFC 4226 / 6238 one-time passwords.
#include <certsteward/domain/totp.hpp>

#include <array>

#include <certsteward/domain/encoding.hpp>

namespace certsteward::domain {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

}  // namespace

std::string base32Encode(std::string_view bytes) {
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (const char c : bytes) {
    buffer = (buffer << 8) | static_cast<unsigned char>(c);
    bits += 8;
    while (bits >= 5) {
      out.push_back(kAlphabet[(buffer >> (bits - 5)) & 0x1f]);
      bits -= 5;
    }
  }
  if (bits > 0) out.push_back(kAlphabet[(buffer << (5 - bits)) & 0x1f]);
  return out;
}

std::optional<std::string> base32Decode(std::string_view text) {
  std::string out;
  std::uint32_t buffer = 0;
  int bits = 0;
  for (const char raw : text) {
    if (raw == '=' || raw == ' ') continue;
    const char c = (raw >= 'a' && raw <= 'z') ? static_cast<char>(raw - 'a' + 'A') : raw;
    int value = -1;
    if (c >= 'A' && c <= 'Z') value = c - 'A';
    if (c >= '2' && c <= '7') value = c - '2' + 26;
    if (value < 0) return std::nullopt;
    buffer = (buffer << 5) | static_cast<std::uint32_t>(value);
    bits += 5;
    if (bits >= 8) {
      out.push_back(static_cast<char>((buffer >> (bits - 8)) & 0xff));
      bits -= 8;
    }
  }
  return out;
}

std::string otpauthUrl(std::string_view issuer, std::string_view account,
                       std::string_view base32Secret) {
  return "otpauth://totp/" + percentEncode(issuer) + ":" + percentEncode(account) +
         "?secret=" + std::string(base32Secret) + "&issuer=" + percentEncode(issuer) +
         "&algorithm=SHA1&digits=6&period=30";
}

}  // namespace certsteward::domain
