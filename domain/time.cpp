// RFC 3339 formatting and parsing over the C++20 calendar types, and configuration durations.
#include <certsteward/domain/time.hpp>

#include <array>
#include <charconv>
#include <cstdio>
#include <limits>

namespace certsteward::domain {
namespace {

using namespace std::chrono;

// Reads exactly `width` decimal digits at `pos`, advancing it.
bool readDigits(std::string_view text, std::size_t& pos, std::size_t width, int& out) {
  if (pos + width > text.size()) return false;
  int value = 0;
  for (std::size_t i = 0; i < width; ++i) {
    const char c = text[pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  pos += width;
  out = value;
  return true;
}

bool expect(std::string_view text, std::size_t& pos, char c) {
  if (pos >= text.size() || (text[pos] != c)) return false;
  ++pos;
  return true;
}

}  // namespace

void appendTimestamp(std::string& out, Timestamp t) {
  const auto day = floor<days>(t);
  const year_month_day ymd{day};
  const hh_mm_ss<Duration> tod{t - day};
  const int year = static_cast<int>(ymd.year());
  if (year < 0 || year > 9999) {  // outside RFC 3339's four digits: keep the slow, general path
    std::array<char, 40> buf{};
    std::snprintf(buf.data(), buf.size(), "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ", year,
                  static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                  static_cast<int>(tod.hours().count()), static_cast<int>(tod.minutes().count()),
                  static_cast<int>(tod.seconds().count()),
                  static_cast<int>(tod.subseconds().count()));
    out += buf.data();
    return;
  }
  // Hot path (every timestamp of every response): digits by hand, no printf, no allocation.
  char text[] = "0000-00-00T00:00:00.000Z";
  const auto put = [&text](std::size_t at, int width, long long value) {
    for (int i = width - 1; i >= 0; --i) {
      text[at + static_cast<std::size_t>(i)] = static_cast<char>('0' + value % 10);
      value /= 10;
    }
  };
  put(0, 4, year);
  put(5, 2, static_cast<unsigned>(ymd.month()));
  put(8, 2, static_cast<unsigned>(ymd.day()));
  put(11, 2, tod.hours().count());
  put(14, 2, tod.minutes().count());
  put(17, 2, tod.seconds().count());
  put(20, 3, tod.subseconds().count());
  out.append(text, sizeof text - 1);
}

std::string formatTimestamp(Timestamp t) {
  std::string out;
  appendTimestamp(out, t);
  return out;
}

std::optional<Timestamp> parseTimestamp(std::string_view text) {
  std::size_t pos = 0;
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0;
  if (!readDigits(text, pos, 4, y) || !expect(text, pos, '-') || !readDigits(text, pos, 2, mo) ||
      !expect(text, pos, '-') || !readDigits(text, pos, 2, d)) {
    return std::nullopt;
  }
  if (pos >= text.size() || (text[pos] != 'T' && text[pos] != 't' && text[pos] != ' ')) {
    return std::nullopt;
  }
  ++pos;
  if (!readDigits(text, pos, 2, h) || !expect(text, pos, ':') || !readDigits(text, pos, 2, mi) ||
      !expect(text, pos, ':') || !readDigits(text, pos, 2, s)) {
    return std::nullopt;
  }
  if (h > 23 || mi > 59 || s > 59) return std::nullopt;
  int millis = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (digits < 3) millis = millis * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (int i = digits; i < 3; ++i)
      millis *= 10;
  }
  minutes offset{0};
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh = 0, om = 0;
    if (!readDigits(text, pos, 2, oh) || !expect(text, pos, ':') || !readDigits(text, pos, 2, om) ||
        oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset = minutes{sign * (oh * 60 + om)};
  } else {
    return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;
  const year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)},
                           day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return std::nullopt;
  return Timestamp{sys_days{ymd}} + hours{h} + minutes{mi} + seconds{s} + Duration{millis} - offset;
}

std::int64_t unixSeconds(Timestamp t) {
  return floor<seconds>(t).time_since_epoch().count();
}

Timestamp fromUnixSeconds(std::int64_t s) {
  return Timestamp{seconds{s}};
}

std::optional<Duration> parseDuration(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  const bool millis = text.size() > 2 && text.ends_with("ms");
  const char unit = millis ? 'M' : text.back();
  const std::string_view digits = text.substr(0, text.size() - (millis ? 2 : 1));
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc{} || end != digits.data() + digits.size() || value < 0) return std::nullopt;
  std::int64_t unitMillis = 0;
  switch (unit) {
    case 'M':  // "ms"
      unitMillis = 1;
      break;
    case 's':
      unitMillis = 1000;
      break;
    case 'm':
      unitMillis = 60 * 1000;
      break;
    case 'h':
      unitMillis = 3600 * 1000;
      break;
    case 'd':
      unitMillis = 86400 * 1000;
      break;
    default:
      return std::nullopt;
  }
  if (value > std::numeric_limits<std::int64_t>::max() / unitMillis) return std::nullopt;
  return Duration{value * unitMillis};
}

}  // namespace certsteward::domain
