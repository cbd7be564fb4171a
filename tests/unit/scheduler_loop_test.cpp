// The scheduler thread's leader gauge follows the lease: 1 once it leads, 0 as soon as the lease
// cannot be renewed (the store does not answer: another instance may take it after the TTL), 1
// again when the store is back. The alerts on several leaders or none read this gauge.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/metrics/prometheus_registry.hpp>
#include <certsteward/adapters/runtime/scheduler_loop.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/services/scheduler.hpp>
#include <certsteward/testing/sequential_ids.hpp>

using namespace certsteward;
using namespace std::chrono_literals;

namespace {

// A leader lock that fails while `failing` is set, as a store that does not answer.
class FailableLock : public ports::LeaderLock {
 public:
  explicit FailableLock(ports::LeaderLock& inner) : inner_(inner) {}
  std::atomic<bool> failing{false};

  domain::Result<bool> tryAcquire(const std::string& name, const std::string& holder,
                                  domain::Timestamp now, domain::Duration ttl) override {
    if (failing) return domain::makeError(domain::ErrorCode::unavailable, "the store is down");
    return inner_.tryAcquire(name, holder, now, ttl);
  }
  domain::Status release(const std::string& name, const std::string& holder) override {
    if (failing) return domain::makeError(domain::ErrorCode::unavailable, "the store is down");
    return inner_.release(name, holder);
  }
  domain::Result<std::optional<std::string>> holder(const std::string& name,
                                                    domain::Timestamp now) const override {
    return inner_.holder(name, now);
  }

 private:
  ports::LeaderLock& inner_;
};

// Waits (at most 5 s) until the rendered metrics contain `line`.
bool eventually(const adapters::metrics::PrometheusRegistry& metrics, const std::string& line) {
  for (int i = 0; i < 500; ++i) {
    if (metrics.render().find(line) != std::string::npos) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

}  // namespace

TEST_CASE("scheduler loop: the leader gauge drops to 0 while the lease cannot be renewed") {
  adapters::memory::MemoryStore store;
  adapters::crypto::SystemClock clock;
  testing::SequentialIds ids{clock};
  FailableLock lock(store.leaderLock());
  services::Scheduler scheduler(
      {lock, store.certificates(), store.jobs(), ids, clock, store.projects(), store.settings()},
      services::SchedulerOptions{90s, 2, 10, {}});
  adapters::metrics::PrometheusRegistry metrics;
  adapters::runtime::SchedulerLoop loop(scheduler, "instance-1", 20ms, 1h, metrics);
  loop.start();
  CHECK(eventually(metrics, "certsteward_scheduler_leader 1"));
  lock.failing = true;
  CHECK(eventually(metrics, "certsteward_scheduler_leader 0"));
  lock.failing = false;
  CHECK(eventually(metrics, "certsteward_scheduler_leader 1"));
  loop.stop();
}
