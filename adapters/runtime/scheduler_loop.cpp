#include <certsteward/adapters/runtime/scheduler_loop.hpp>

#include <spdlog/spdlog.h>

namespace certsteward::adapters::runtime {

SchedulerLoop::SchedulerLoop(services::Scheduler& scheduler, std::string instance,
                             domain::Duration heartbeat, domain::Duration interval,
                             ports::Metrics& metrics)
    : scheduler_(scheduler),
      instance_(std::move(instance)),
      heartbeat_(heartbeat),
      interval_(interval),
      metrics_(metrics) {}

SchedulerLoop::~SchedulerLoop() {
  stop();
}

void SchedulerLoop::start() {
  thread_ = std::thread([this] { loop(); });
}

void SchedulerLoop::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SchedulerLoop::loop() {
  bool leading = false;
  metrics_.set("certsteward_scheduler_leader", {}, 0);
  auto nextSweep = std::chrono::steady_clock::now();
  while (!stopping_) {
    auto lead = scheduler_.lead(instance_);
    if (!lead) {
      // The lease cannot be renewed: it lapses, and another instance may take it. Not counted as
      // leading from here on, so the gauge never shows two leaders or hides a missing one.
      spdlog::warn("scheduler: leader lease: {}", lead.error().message);
      if (leading) {
        leading = false;
        metrics_.set("certsteward_scheduler_leader", {}, 0);
        spdlog::info("scheduler: {} stops leading: the store did not answer", instance_);
      }
    } else if (*lead != leading) {
      leading = *lead;
      metrics_.set("certsteward_scheduler_leader", {}, leading ? 1 : 0);
      spdlog::info("scheduler: {} {}", instance_, leading ? "leads" : "is a standby");
      nextSweep = std::chrono::steady_clock::now();
    }
    if (leading && std::chrono::steady_clock::now() >= nextSweep) {
      const auto started = std::chrono::steady_clock::now();
      auto report = scheduler_.sweep();
      metrics_.observe(
          "certsteward_scheduler_sweep_duration_seconds", {},
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
      metrics_.increment("certsteward_scheduler_sweeps_total",
                         {{"result", report ? "ok" : "error"}});
      if (report) {
        metrics_.increment("certsteward_scheduler_renewals_queued_total", {},
                           static_cast<double>(report->enqueued));
        metrics_.increment("certsteward_scheduler_expiry_checks_queued_total", {},
                           static_cast<double>(report->expiry_checks));
      }
      if (!report) {
        spdlog::warn("scheduler: sweep failed: {}", report.error().message);
      } else if (report->due > 0 || report->expiry_checks > 0 || report->distributions > 0) {
        spdlog::info(
            "scheduler: sweep found {} due, queued {} renewal(s), {} left for later, {} expiry "
            "check(s), {} stale distribution(s)",
            report->due, report->enqueued, report->skipped, report->expiry_checks,
            report->distributions);
      }
      nextSweep = started + interval_;
    }
    auto wait = heartbeat_;
    if (leading) {
      wait = std::min<domain::Duration>(wait, std::chrono::duration_cast<domain::Duration>(std::max(
                                                  nextSweep - std::chrono::steady_clock::now(),
                                                  std::chrono::steady_clock::duration::zero())));
    }
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, wait, [this] { return stopping_.load(); });
  }
  if (leading) (void)scheduler_.resign(instance_);
  metrics_.set("certsteward_scheduler_leader", {}, 0);
}

}  // namespace certsteward::adapters::runtime
