// StopSignal: asks a running attempt to end early — a cancel seen by its heartbeat, or the
// worker's shutdown deadline. Adapters that wait (CA polling, DNS propagation, HTTP exchanges)
// check it between steps and return promptly once it is raised. Thread-safe.
#pragma once

#include <atomic>

namespace certsteward::domain {

class StopSignal {
 public:
  void request() noexcept { requested_.store(true); }
  bool requested() const noexcept { return requested_.load(); }

 private:
  std::atomic<bool> requested_{false};
};

}  // namespace certsteward::domain
