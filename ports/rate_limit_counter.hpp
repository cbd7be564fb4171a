// RateLimitCounter: fixed-window counters shared by all instances (login per IP and per
// username, refresh, OTP, job retry, audit verify).
#pragma once

#include <cstdint>
#include <string>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::ports {

class RateLimitCounter {
 public:
  virtual ~RateLimitCounter() = default;

  /**
   * Counts one hit on `bucket` in the window of length `window` that contains `now` (windows
   * are aligned to the epoch). @return the count in that window including this hit.
   * Thread-safe and atomic across instances.
   */
  virtual domain::Result<std::int64_t> hit(const std::string& bucket, domain::Duration window,
                                           domain::Timestamp now) = 0;
};

}  // namespace certsteward::ports
