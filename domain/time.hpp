// Instants and durations of the domain. Every instant is UTC with millisecond precision; the
// only source of "now" is the Clock port.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace certsteward::domain {

using Duration = std::chrono::milliseconds;
using Timestamp = std::chrono::sys_time<Duration>;

// RFC 3339 in UTC with milliseconds: "2026-11-21T22:53:27.123Z".
std::string formatTimestamp(Timestamp t);
// The same, appended to `out` (no allocation beyond `out`'s own growth).
void appendTimestamp(std::string& out, Timestamp t);

// Parses RFC 3339 ("2026-11-21T22:53:27Z", fractional seconds and "+hh:mm" offsets accepted).
// Returns nullopt for anything else, including impossible dates.
std::optional<Timestamp> parseTimestamp(std::string_view text);

// Seconds since the Unix epoch, rounded down.
std::int64_t unixSeconds(Timestamp t);
Timestamp fromUnixSeconds(std::int64_t seconds);

// Parses a configuration duration: a positive integer followed by ms, s, m, h or d ("250ms",
// "30s", "15m", "1h", "7d"); "0s" is allowed. Returns nullopt for anything else.
std::optional<Duration> parseDuration(std::string_view text);

}  // namespace certsteward::domain
