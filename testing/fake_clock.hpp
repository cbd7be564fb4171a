// FakeClock: a settable clock for tests. Thread-safe.
#pragma once

#include <atomic>

#include <certsteward/ports/clock.hpp>

namespace certsteward::testing {

class FakeClock : public ports::Clock {
 public:
  explicit FakeClock(domain::Timestamp start = domain::Timestamp{std::chrono::days{20000}})
      : now_(start.time_since_epoch().count()) {}
  domain::Timestamp now() const override {
    return domain::Timestamp{domain::Duration{now_.load()}};
  }
  void advance(domain::Duration d) { now_ += d.count(); }
  void set(domain::Timestamp t) { now_ = t.time_since_epoch().count(); }

 private:
  std::atomic<domain::Duration::rep> now_;
};

}  // namespace certsteward::testing
