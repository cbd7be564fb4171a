// Zone lookup candidates.
#include <certsteward/domain/zone.hpp>

namespace certsteward::domain {

std::vector<std::string> zoneCandidates(std::string_view name) {
  std::vector<std::string> out;
  while (!name.empty() && out.size() < 128) {
    out.emplace_back(name);
    const auto dot = name.find('.');
    if (dot == std::string_view::npos) break;
    name.remove_prefix(dot + 1);
  }
  return out;
}

}  // namespace certsteward::domain
