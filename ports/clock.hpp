// Clock: the only source of "now" for the core. Tests use a fake.
#pragma once

#include <memory>

#include <certsteward/domain/time.hpp>

namespace certsteward::ports {

class Clock {
 public:
  virtual ~Clock() = default;

  /** @return the current UTC instant. Never fails. Thread-safe. */
  virtual domain::Timestamp now() const = 0;
};

using ClockPtr = std::unique_ptr<Clock>;

}  // namespace certsteward::ports
