// Text helpers of the channel senders: UTF-8 repair and truncation, excerpts of what a server
// answered (safe to put in an error message) and header text checks. Settings are read with
// domain::settingOf; addresses and header names checked with domain/notification_settings.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace certsteward::adapters::notify {

// `text` with every byte sequence that is not UTF-8 replaced by U+FFFD.
std::string validUtf8(std::string_view text);

// At most `maxUnits` UTF-16 code units of (valid UTF-8) `text` — what JavaScript-based services
// count as characters — cut on a code point and ended with "…" when it had to be cut.
std::string truncateUtf16(std::string_view text, std::size_t maxUnits);

// The first `maxChars` code points of `text` on one line: control characters blanked, invalid
// UTF-8 repaired, surrounding space trimmed. For quoting a server's answer in an error.
std::string excerpt(std::string_view text, std::size_t maxChars = 200);

// `text` without its leading and trailing spaces and tabs.
std::string_view trimmed(std::string_view text);

// Only the characters of an HTTP token (RFC 9110) of `text`: for ids and event names in headers.
std::string tokenOnly(std::string_view text);

// Whether `text` holds a control character other than a tab (CR and LF included).
bool hasControl(std::string_view text);

}  // namespace certsteward::adapters::notify
