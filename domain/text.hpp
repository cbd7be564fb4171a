// ASCII text helpers written once for every layer: header values, configuration lines and
// setting names are ASCII by their grammars, so no locale is involved.
#pragma once

#include <string>
#include <string_view>

namespace certsteward::domain {

// `s` without leading and trailing spaces and tabs (HTTP's optional whitespace).
constexpr std::string_view trimBlanks(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

constexpr char asciiLower(char c) noexcept {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

inline std::string asciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = asciiLower(c);
  return out;
}

// Whether `a` and `b` are equal, in a time that depends only on their lengths (tokens, MACs
// and states compared against what an attacker sends).
inline bool constantTimeEquals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  unsigned diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    diff |= static_cast<unsigned>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace certsteward::domain
