// TimeZones: the IANA time zone names this machine knows (the tz database), for validating a
// user's profile.
#pragma once

#include <string_view>

namespace certsteward::ports {

class TimeZones {
 public:
  virtual ~TimeZones() = default;

  /** @return whether `name` is an IANA time zone name ("Europe/Zurich", "UTC"). Thread-safe. */
  virtual bool exists(std::string_view name) const = 0;
};

}  // namespace certsteward::ports
