#include "app/worker_pool.hpp"

#include <spdlog/spdlog.h>

namespace certsteward::app {

WorkerPool::WorkerPool(domain::IssuanceWorker& worker, domain::Lane lane, int threads,
                       domain::Duration pollInterval, std::string idPrefix)
    : worker_(worker),
      lane_(lane),
      threads_(std::max(1, threads)),  // 0 (serial) is one worker
      pollInterval_(pollInterval),
      idPrefix_(std::move(idPrefix)) {}

WorkerPool::~WorkerPool() {
  stop();
}

void WorkerPool::start() {
  for (int i = 0; i < threads_; ++i) {
    const std::string id =
        idPrefix_ + "/" + std::string(domain::nameOf(lane_)) + "-" + std::to_string(i);
    running_.emplace_back([this, id] { loop(id); });
  }
}

void WorkerPool::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
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
    wake_.wait_for(lock, pollInterval_, [this] { return stopping_.load(); });
  }
}

}  // namespace certsteward::app
