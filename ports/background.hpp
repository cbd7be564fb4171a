// Background: runs `work` on the calling thread while `tick` is called every `every` elsewhere
// (a job's heartbeat during its attempt). Returns after `work` has returned and the last tick
// has finished. The domain states what to do; the adapter owns the thread. Thread-safe.
#pragma once

#include <functional>

#include "domain/time.hpp"

namespace certsteward::ports {

class Background {
 public:
  virtual ~Background() = default;
  virtual void whileRunning(domain::Duration every, const std::function<void()>& tick,
                            const std::function<void()>& work) = 0;
};

}  // namespace certsteward::ports
