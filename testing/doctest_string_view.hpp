// Lets doctest print std::string_view operands (doctest 2.4.9 cannot). Force-included into
// this project's test targets by certsteward_add_test(); the contract suites include it.
#pragma once

#include <doctest/doctest.h>

#include <string_view>

namespace doctest {
template <>
struct StringMaker<std::string_view> {
  static String convert(std::string_view v) {
    return String(v.data(), static_cast<String::size_type>(v.size()));
  }
};
}  // namespace doctest
