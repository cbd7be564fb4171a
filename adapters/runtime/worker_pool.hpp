// WorkerPool: threads that keep asking the JobRunner for the next job of one lane, and
// sleep `poll_interval` when there is none. stop() wakes them and lets running jobs finish for
// up to `shutdown_wait` (55 s); past it the worker releases what still runs (back to pending)
// and the threads are joined as their attempts return. Mechanics only: what a job does is the
// domain's.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <certsteward/services/job_runner.hpp>

namespace certsteward::adapters::runtime {

class WorkerPool {
 public:
  WorkerPool(services::JobRunner& worker, domain::Lane lane, int threads,
             domain::Duration pollInterval, domain::Duration shutdownWait, std::string idPrefix);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void start();
  void stop();
  // New work was queued in this process: one idle thread asks at once instead of at its next
  // poll (work queued by other instances is found by polling).
  void wake();

 private:
  void loop(const std::string& id);

  services::JobRunner& worker_;
  domain::Lane lane_;
  int threads_;
  domain::Duration pollInterval_;
  domain::Duration shutdownWait_;
  std::string idPrefix_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  int wakeups_ = 0;  // under mutex_
  std::condition_variable exited_;
  int live_ = 0;  // loops not yet returned
  std::vector<std::thread> running_;
};

}  // namespace certsteward::adapters::runtime
