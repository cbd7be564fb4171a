#include <certsteward/adapters/runtime/thread_background.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

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

void ThreadBackground::forEach(std::size_t count, std::size_t concurrency,
                               const std::function<void(std::size_t)>& work) {
  const std::size_t threads = std::min(count, std::max<std::size_t>(concurrency, 1));
  if (threads <= 1) {
    for (std::size_t i = 0; i < count; ++i)
      work(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  const auto drain = [&] {
    for (std::size_t i = next++; i < count; i = next++)
      work(i);
  };
  for (std::size_t t = 1; t < threads; ++t)
    pool.emplace_back(drain);
  drain();
  for (auto& t : pool)
    t.join();
}

void ThreadBackground::pause(domain::Duration d) {
  std::this_thread::sleep_for(d);
}

}  // namespace certsteward::adapters::runtime
