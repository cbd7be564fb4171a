// Background: runs `work` on the calling thread while `tick` is called every `every` elsewhere
// (a job's heartbeat during its attempt), and runs independent pieces of work side by side
// (the targets of a distribution). Returns after `work` has returned and the last tick
// has finished; pause() waits on the calling thread. The domain states what to do; the adapter
// owns the threads and the clock's sleeping. Thread-safe.
#pragma once

#include <cstddef>
#include <functional>

#include <certsteward/domain/time.hpp>

namespace certsteward::ports {

class Background {
 public:
  virtual ~Background() = default;
  virtual void whileRunning(domain::Duration every, const std::function<void()>& tick,
                            const std::function<void()>& work) = 0;
  /**
   * Calls work(0) .. work(count - 1), at most `concurrency` at a time (each index once), and
   * returns when every call has returned. `work` must not throw.
   */
  virtual void forEach(std::size_t count, std::size_t concurrency,
                       const std::function<void(std::size_t)>& work) = 0;
  /** Blocks the calling thread for `d` (a short wait between polls). */
  virtual void pause(domain::Duration d) = 0;
};

}  // namespace certsteward::ports
