// TOTP codes (RFC 4226 / 6238) through the OtpHasher port: 6 digits, 30-second steps, one step
// of clock drift either way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <certsteward/domain/time.hpp>
#include <certsteward/domain/totp.hpp>
#include <certsteward/ports/otp_hasher.hpp>

namespace certsteward::services {

// The code for one counter value (RFC 4226 HOTP), zero-padded to 6 digits.
std::string hotp(const ports::OtpHasher& hasher, std::string_view key, std::uint64_t counter);

// Whether `code` is the TOTP of `key` at `now`, or one step before or after.
bool verifyTotp(const ports::OtpHasher& hasher, std::string_view key, std::string_view code,
                domain::Timestamp now);

// The time step (counter) whose code `code` is, among the steps verifyTotp accepts; nullopt when
// it is none of them. A code may be used once per step: callers remember the step.
std::optional<std::int64_t> matchTotp(const ports::OtpHasher& hasher, std::string_view key,
                                      std::string_view code, domain::Timestamp now);

}  // namespace certsteward::services
