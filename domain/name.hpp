// The one rule for every name a person gives a thing (projects, ACME accounts, credentials,
// zones' credentials, modules and their targets, channels, rules): what a list shows must be
// what was typed, with nothing hidden in it.
#pragma once

#include <string_view>

namespace certsteward::domain {

inline constexpr std::size_t kMaxNameCharacters = 100;

// 1..100 characters of valid UTF-8 without leading or trailing spaces, control characters
// (C0, DEL, C1), bidirectional controls (U+061C, U+200E, U+200F, U+202A..U+202E,
// U+2066..U+2069) or a byte-order mark (U+FEFF).
bool isValidName(std::string_view name) noexcept;

// The message of the 422 for a name that breaks the rule.
inline constexpr const char* kNameRule =
    "must be 1 to 100 characters of valid UTF-8 without leading or trailing spaces, control "
    "characters or bidirectional controls";

}  // namespace certsteward::domain
