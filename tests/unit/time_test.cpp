// RFC 3339 timestamps and configuration durations.
#include <doctest/doctest.h>

#include <certsteward/domain/time.hpp>

using namespace certsteward::domain;
using namespace std::chrono_literals;

TEST_CASE("time: RFC 3339 formatting is UTC with milliseconds") {
  CHECK(formatTimestamp(fromUnixSeconds(0)) == "1970-01-01T00:00:00.000Z");
  CHECK(formatTimestamp(fromUnixSeconds(1767225600) + 7ms) == "2026-01-01T00:00:00.007Z");
  CHECK(formatTimestamp(fromUnixSeconds(951782400)) == "2000-02-29T00:00:00.000Z");
  CHECK(formatTimestamp(fromUnixSeconds(1795355107) + 123ms) == "2026-11-22T13:45:07.123Z");
  CHECK(formatTimestamp(fromUnixSeconds(253402300799) + 999ms) == "9999-12-31T23:59:59.999Z");
  CHECK(formatTimestamp(fromUnixSeconds(-1)) == "1969-12-31T23:59:59.000Z");
}

TEST_CASE("time: RFC 3339 parsing accepts the usual forms and refuses the rest") {
  const struct {
    const char* text;
    std::optional<std::int64_t> unixMillis;
  } rows[] = {
      {"2026-01-01T00:00:00Z", 1767225600000},
      {"2026-01-01T00:00:00.5Z", 1767225600500},
      {"2026-01-01T00:00:00.123456Z", 1767225600123},
      {"2026-01-01T01:00:00+01:00", 1767225600000},
      {"2025-12-31T23:00:00-01:00", 1767225600000},
      {"2026-01-01t00:00:00z", 1767225600000},
      {"2026-02-30T00:00:00Z", std::nullopt},
      {"2026-01-01T24:00:00Z", std::nullopt},
      {"2026-01-01T00:00:00", std::nullopt},
      {"2026-01-01", std::nullopt},
      {"2026-01-01T00:00:00.Z", std::nullopt},
      {"2026-01-01T00:00:00Zjunk", std::nullopt},
      {"", std::nullopt},
      {"yesterday", std::nullopt},
  };
  for (const auto& r : rows) {
    CAPTURE(r.text);
    const auto t = parseTimestamp(r.text);
    REQUIRE(t.has_value() == r.unixMillis.has_value());
    if (t) CHECK(t->time_since_epoch().count() == *r.unixMillis);
  }
  const Timestamp t = fromUnixSeconds(1767225600) + 42ms;
  CHECK(parseTimestamp(formatTimestamp(t)) == t);
}

TEST_CASE("time: configuration durations") {
  const struct {
    const char* text;
    std::optional<Duration> d;
  } rows[] = {{"30s", 30s},
              {"15m", 15min},
              {"1h", 1h},
              {"7d", 24h * 7},
              {"0s", 0s},
              {"", std::nullopt},
              {"15", std::nullopt},
              {"m", std::nullopt},
              {"-5s", std::nullopt},
              {"1.5h", std::nullopt},
              {"5w", std::nullopt},
              {"99999999999999999d", std::nullopt},
              {"250ms", 250ms},
              {"0ms", 0ms},
              {"ms", std::nullopt},
              {"5 ms", std::nullopt},
              {"1.5ms", std::nullopt}};
  for (const auto& r : rows) {
    CAPTURE(r.text);
    CHECK(parseDuration(r.text) == r.d);
  }
}
