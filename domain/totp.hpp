// TOTP (RFC 6238): 6 digits, 30-second steps, SHA-1; base32 secrets and otpauth:// URLs for
// authenticator apps. The codes themselves (an HMAC through the OtpHasher port) are computed in
// services/totp_codes.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

inline constexpr std::int64_t kTotpStepSeconds = 30;
inline constexpr int kTotpDigits = 6;

std::string base32Encode(std::string_view bytes);  // RFC 4648, no padding
std::optional<std::string> base32Decode(std::string_view text);

// otpauth://totp/<issuer>:<account>?secret=...&issuer=...&algorithm=SHA1&digits=6&period=30
std::string otpauthUrl(std::string_view issuer, std::string_view account,
                       std::string_view base32Secret);

}  // namespace certsteward::domain
