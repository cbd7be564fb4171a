// RFC 4226 / 6238 one-time passwords.
#include <certsteward/services/totp_codes.hpp>

#include <array>

namespace certsteward::services {

std::string hotp(const ports::OtpHasher& hasher, std::string_view key, std::uint64_t counter) {
  std::array<char, 8> message{};
  for (int i = 7; i >= 0; --i) {
    message[static_cast<std::size_t>(i)] = static_cast<char>(counter & 0xff);
    counter >>= 8;
  }
  const std::string mac = hasher.hmacSha1(key, std::string_view(message.data(), message.size()));
  const auto byte = [&](std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(mac[i]));
  };
  const std::size_t offset = byte(mac.size() - 1) & 0x0f;
  const std::uint32_t binary = ((byte(offset) & 0x7f) << 24) | (byte(offset + 1) << 16) |
                               (byte(offset + 2) << 8) | byte(offset + 3);
  std::string code = std::to_string(binary % 1000000);
  return std::string(static_cast<std::size_t>(domain::kTotpDigits) - code.size(), '0') + code;
}

std::optional<std::int64_t> matchTotp(const ports::OtpHasher& hasher, std::string_view key,
                                      std::string_view code, domain::Timestamp now) {
  if (code.size() != static_cast<std::size_t>(domain::kTotpDigits)) return std::nullopt;
  const std::int64_t step = domain::unixSeconds(now) / domain::kTotpStepSeconds;
  std::optional<std::int64_t> matched;
  for (std::int64_t drift = -1; drift <= 1; ++drift) {
    const std::string expected = hotp(hasher, key, static_cast<std::uint64_t>(step + drift));
    // Compare every candidate fully, whatever matched, to keep timing flat.
    unsigned diff = 0;
    for (std::size_t i = 0; i < expected.size(); ++i) {
      diff |= static_cast<unsigned>(expected[i] ^ code[i]);
    }
    if (diff == 0 && !matched) matched = step + drift;
  }
  return matched;
}

bool verifyTotp(const ports::OtpHasher& hasher, std::string_view key, std::string_view code,
                domain::Timestamp now) {
  return matchTotp(hasher, key, code, now).has_value();
}

}  // namespace certsteward::services
