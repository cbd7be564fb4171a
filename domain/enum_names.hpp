// One table per enum gives both directions of its wire names, so a name is written once.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace certsteward::domain {

template <class E, std::size_t N>
struct EnumNames {
  std::array<std::pair<E, std::string_view>, N> entries;

  constexpr std::string_view name(E value) const noexcept {
    for (const auto& [e, n] : entries) {
      if (e == value) return n;
    }
    return "unknown";
  }

  constexpr std::optional<E> parse(std::string_view text) const noexcept {
    for (const auto& [e, n] : entries) {
      if (n == text) return e;
    }
    return std::nullopt;
  }
};

template <class E, class... Pairs>
constexpr auto makeEnumNames(Pairs... pairs) {
  return EnumNames<E, sizeof...(Pairs)>{{{pairs...}}};
}

// Every value of a contiguous enum (0, 1, ...) in order, for enums whose nameOf answers
// "unknown" past the last value (found by argument-dependent lookup).
template <class E>
std::vector<E> everyValue() {
  std::vector<E> values;
  for (int i = 0; nameOf(static_cast<E>(i)) != "unknown"; ++i)
    values.push_back(static_cast<E>(i));
  return values;
}

}  // namespace certsteward::domain
