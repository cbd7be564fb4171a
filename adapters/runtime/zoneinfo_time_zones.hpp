// ZoneinfoTimeZones: ports::TimeZones over the tz database files (/usr/share/zoneinfo, Debian's
// tzdata). A name is known when it is a well-formed zone name and its file is a TZif file.
#pragma once

#include <string>

#include <certsteward/ports/time_zones.hpp>

namespace certsteward::adapters::runtime {

class ZoneinfoTimeZones : public ports::TimeZones {
 public:
  explicit ZoneinfoTimeZones(std::string root = "/usr/share/zoneinfo") : root_(std::move(root)) {}
  bool exists(std::string_view name) const override;

 private:
  std::string root_;
};

}  // namespace certsteward::adapters::runtime
