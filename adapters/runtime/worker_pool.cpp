#include <certsteward/adapters/runtime/worker_pool.hpp>

#include <spdlog/spdlog.h>

namespace certsteward::adapters::runtime {

WorkerPool::WorkerPool(services::JobRunner& worker, domain::Lane lane, int threads,
                       domain::Duration pollInterval, domain::Duration shutdownWait,
                       std::string idPrefix)
    : worker_(worker),
      lane_(lane),
      threads_(std::max(1, threads)),  // 0 (serial) is one worker
      pollInterval_(pollInterval),
      shutdownWait_(shutdownWait),
      idPrefix_(std::move(idPrefix)) {}

WorkerPool::~WorkerPool() {
  stop();
}

void WorkerPool::start() {
  for (int i = 0; i < threads_; ++i) {
    const std::string id =
        idPrefix_ + "/" + std::string(domain::nameOf(lane_)) + "-" + std::to_string(i);
    {
      std::lock_guard lock(mutex_);
      ++live_;
    }
    running_.emplace_back([this, id] {
      loop(id);
      std::lock_guard lock(mutex_);
      --live_;
      exited_.notify_all();
    });
  }
}

void WorkerPool::stop() {
  {
    std::unique_lock lock(mutex_);
    stopping_ = true;
    wake_.notify_all();
    if (!exited_.wait_for(lock, shutdownWait_, [this] { return live_ == 0; })) {
      spdlog::warn(
          "workers ({}): {} job(s) still running after the shutdown wait; returning them "
          "to pending",
          domain::nameOf(lane_), live_);
      lock.unlock();
      worker_.releaseRunning();
    }
  }
  for (auto& t : running_) {
    if (t.joinable()) t.join();
  }
  running_.clear();
}

void WorkerPool::loop(const std::string& id) {
  while (!stopping_) {
    auto ran = worker_.runOnce(lane_, id);
    if (!ran) spdlog::warn("worker {}: {}", id, ran.error().message);
    if (ran && *ran) continue;  // there may be more due work: ask again at once
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, pollInterval_, [this] { return stopping_.load() || wakeups_ > 0; });
    if (wakeups_ > 0) --wakeups_;
  }
}

void WorkerPool::wake() {
  {
    std::lock_guard lock(mutex_);
    ++wakeups_;
  }
  wake_.notify_one();
}

}  // namespace certsteward::adapters::runtime
