// SystemClock: the real UTC clock, at millisecond precision. Thread-safe.
#pragma once

#include <certsteward/ports/clock.hpp>

namespace certsteward::adapters::crypto {

class SystemClock : public ports::Clock {
 public:
  domain::Timestamp now() const override {
    return std::chrono::floor<domain::Duration>(std::chrono::system_clock::now());
  }
};

}  // namespace certsteward::adapters::crypto
