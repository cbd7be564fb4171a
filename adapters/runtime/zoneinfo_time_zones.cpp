// Time zone names checked against the tz database files.
#include <certsteward/adapters/runtime/zoneinfo_time_zones.hpp>

#include <cctype>
#include <fstream>

namespace certsteward::adapters::runtime {

bool ZoneinfoTimeZones::exists(std::string_view name) const {
  // Area/Location[/Sub] of letters, digits, '_', '-', '+'; never a path that leaves the root.
  if (name.empty() || name.size() > 64 || name.front() == '/' || name.back() == '/') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto c = static_cast<unsigned char>(name[i]);
    if (!(std::isalnum(c) || c == '_' || c == '-' || c == '+' || c == '/')) return false;
    if (c == '/' && name[i - 1] == '/') return false;
  }
  if (!std::isalpha(static_cast<unsigned char>(name.front()))) return false;
  if (name.starts_with("posix/") || name.starts_with("right/")) return false;  // not zone names
  std::ifstream file(root_ + "/" + std::string(name), std::ios::binary);
  char magic[4] = {};
  return file.read(magic, 4) && std::string_view(magic, 4) == "TZif";
}

}  // namespace certsteward::adapters::runtime
