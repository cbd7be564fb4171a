// FakePublicSuffixes: registered domains without the Public Suffix List — the last two labels,
// three under "co.uk". Enough for service tests; the libpsl adapter has its own test.
#pragma once

#include <string>

#include <certsteward/ports/public_suffixes.hpp>

namespace certsteward::testing {

class FakePublicSuffixes : public ports::PublicSuffixes {
 public:
  std::string registeredDomain(std::string_view name) const override {
    std::string n(name);
    if (n.starts_with("*.")) n.erase(0, 2);
    const int labels = n.ends_with(".co.uk") ? 3 : 2;
    std::size_t at = n.size();
    for (int i = 0; i < labels; ++i) {
      const auto dot = at == 0 ? std::string::npos : n.rfind('.', at - 1);
      if (dot == std::string::npos) return n;
      at = dot;
    }
    return n.substr(at + 1);
  }
};

}  // namespace certsteward::testing
