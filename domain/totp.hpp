// TOTP (RFC 6238): 6 digits, 30-second steps, SHA-1, one step of clock drift either way;
// base32 secrets and otpauth:// URLs for authenticator apps.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "domain/time.hpp"
#include "ports/otp_hasher.hpp"

namespace certsteward::domain {

inline constexpr std::int64_t kTotpStepSeconds = 30;
inline constexpr int kTotpDigits = 6;

std::string base32Encode(std::string_view bytes);  // RFC 4648, no padding
std::optional<std::string> base32Decode(std::string_view text);

// The code for one counter value (RFC 4226 HOTP), zero-padded to 6 digits.
std::string hotp(const ports::OtpHasher& hasher, std::string_view key, std::uint64_t counter);

// Whether `code` is the TOTP of `key` at `now`, or one step before or after.
bool verifyTotp(const ports::OtpHasher& hasher, std::string_view key, std::string_view code,
                Timestamp now);

// The time step (counter) whose code `code` is, among the steps verifyTotp accepts; nullopt when
// it is none of them. A code may be used once per step: callers remember the step.
std::optional<std::int64_t> matchTotp(const ports::OtpHasher& hasher, std::string_view key,
                                      std::string_view code, Timestamp now);

// otpauth://totp/<issuer>:<account>?secret=...&issuer=...&algorithm=SHA1&digits=6&period=30
std::string otpauthUrl(std::string_view issuer, std::string_view account,
                       std::string_view base32Secret);

}  // namespace certsteward::domain
