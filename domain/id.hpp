// Entity identifiers: 24 lower-case hex characters in MongoDB ObjectId layout — 4 bytes of
// creation time (seconds), 5 bytes of per-process randomness, a 3-byte counter — so ids sort
// by creation and can be stored as a MongoDB `_id` as they are.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

using Id = std::string;

inline constexpr std::size_t kIdLength = 24;

// True when `text` is 24 lower-case hex characters.
bool isValidId(std::string_view text) noexcept;

// Lays out an ObjectId-style id. `counter` is taken modulo 2^24.
Id makeObjectId(Timestamp created, const std::array<std::uint8_t, 5>& processRandom,
                std::uint32_t counter);

// The creation time encoded in an id's first 4 bytes (seconds precision).
Timestamp idTimestamp(std::string_view id);

}  // namespace certsteward::domain
