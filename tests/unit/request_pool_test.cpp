// RequestPool: jobs run off the submitting thread, the queue bound is visible to the server,
// and stop() finishes what was queued before it joins.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <certsteward/adapters/http/request_pool.hpp>

using certsteward::adapters::http::RequestPool;

namespace {

// A gate the test opens; jobs wait on it (bounded, so a broken pool cannot hang the test).
struct Gate {
  std::mutex m;
  std::condition_variable cv;
  bool open = false;
  void wait() {
    std::unique_lock lock(m);
    cv.wait_for(lock, std::chrono::seconds{10}, [this] { return open; });
  }
  void release() {
    {
      std::lock_guard lock(m);
      open = true;
    }
    cv.notify_all();
  }
};

}  // namespace

TEST_CASE("request pool: jobs run on pool threads, the bound shows as full, stop drains") {
  RequestPool pool(1, 2);
  Gate gate;
  std::atomic<int> done{0};
  std::atomic<bool> started{false};
  std::thread::id ran;
  pool.submit([&] {
    ran = std::this_thread::get_id();
    started = true;
    gate.wait();
    ++done;
  });
  for (int i = 0; i < 200 && !started; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds{5});
  REQUIRE(started);
  CHECK(ran != std::this_thread::get_id());
  // The only thread is busy: two more wait, and then the pool says it is full.
  CHECK_FALSE(pool.full());
  pool.submit([&] { ++done; });
  CHECK_FALSE(pool.full());
  pool.submit([&] { ++done; });
  CHECK(pool.full());
  gate.release();
  pool.stop();  // runs the two queued jobs, then joins
  CHECK(done == 3);
  pool.stop();  // idempotent
}
