// RequestPool: threads for HTTP requests that may block (password hashing, calls to a CA or
// a DNS server), with a bounded queue, so that the reactor threads never wait on them. The
// server checks full() before submit(); stop() runs what was queued, then joins.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace certsteward::adapters::http {

class RequestPool {
 public:
  RequestPool(int threads, std::size_t maxQueued) : maxQueued_(maxQueued) {
    for (int i = 0; i < threads; ++i)
      threads_.emplace_back([this] { run(); });
  }
  ~RequestPool() { stop(); }
  RequestPool(const RequestPool&) = delete;
  RequestPool& operator=(const RequestPool&) = delete;

  bool full() const {
    std::lock_guard lock(mutex_);
    return queue_.size() >= maxQueued_;
  }
  void submit(std::function<void()> job) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(job));
    }
    wake_.notify_one();
  }
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

 private:
  void run() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;  // stopping, and nothing left
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      job();
    }
  }

  const std::size_t maxQueued_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace certsteward::adapters::http
