#include "adapters/runtime/thread_background.hpp"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace certsteward::adapters::runtime {

void ThreadBackground::whileRunning(domain::Duration every, const std::function<void()>& tick,
                                    const std::function<void()>& work) {
  std::mutex mutex;
  std::condition_variable wake;
  bool finished = false;
  std::thread ticker([&] {
    std::unique_lock lock(mutex);
    while (!wake.wait_for(lock, every, [&] { return finished; })) {
      lock.unlock();
      tick();
      lock.lock();
    }
  });
  try {
    work();
  } catch (...) {
    {
      std::lock_guard lock(mutex);
      finished = true;
    }
    wake.notify_all();
    ticker.join();
    throw;
  }
  {
    std::lock_guard lock(mutex);
    finished = true;
  }
  wake.notify_all();
  ticker.join();
}

void ThreadBackground::pause(domain::Duration d) {
  std::this_thread::sleep_for(d);
}

}  // namespace certsteward::adapters::runtime
