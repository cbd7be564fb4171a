// SchedulerLoop: the thread that keeps the scheduler's lease (every `heartbeat`; standbys try
// again at the same pace) and, while this instance leads, sweeps every `interval` (at once on
// becoming leader). stop() resigns the lease so a standby takes over at once.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <certsteward/ports/metrics.hpp>
#include <certsteward/services/scheduler.hpp>

namespace certsteward::adapters::runtime {

class SchedulerLoop {
 public:
  SchedulerLoop(services::Scheduler& scheduler, std::string instance, domain::Duration heartbeat,
                domain::Duration interval, ports::Metrics& metrics);
  ~SchedulerLoop();
  SchedulerLoop(const SchedulerLoop&) = delete;
  SchedulerLoop& operator=(const SchedulerLoop&) = delete;

  void start();
  void stop();

 private:
  void loop();

  services::Scheduler& scheduler_;
  std::string instance_;
  domain::Duration heartbeat_;
  domain::Duration interval_;
  ports::Metrics& metrics_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace certsteward::adapters::runtime
