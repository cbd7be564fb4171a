// JobRunner: runs the jobs a worker claims, whatever their type. It claims one due job of a
// lane, keeps its heartbeat, hands it to the JobHandler registered for its type, and moves it
// through the job table (docs/architecture.md): succeeded, retried with backoff, dead,
// cancelled, deferred, or released at shutdown. It writes the job log and the job metrics and
// raises job.failed. What a job does is its handler's. Thread-safe: workers on any number of
// threads share one.
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/job.hpp>
#include <certsteward/domain/stop_signal.hpp>
#include <certsteward/ports/background.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/job_log_repository.hpp>
#include <certsteward/ports/job_queue.hpp>
#include <certsteward/ports/metrics.hpp>
#include <certsteward/ports/notifier.hpp>
#include <certsteward/services/job_handler.hpp>

namespace certsteward::services {

class JobRunner {
 public:
  struct Ports {
    ports::JobQueue& jobs;
    ports::JobLogRepository& logs;
    const ports::Clock& clock;
    ports::Background& background;      // runs the heartbeat beside an attempt
    ports::Notifier& notifier;          // job.failed
    ports::Metrics* metrics = nullptr;  // attempts by outcome, their durations (optional)
    // One handler per job type; a type with none fails saying so.
    std::vector<JobHandler*> handlers{};
  };
  JobRunner(Ports ports, domain::JobPolicy policy);

  // Claims one due job of `lane` and runs it to success or a failed attempt. Returns whether a
  // job was run; an error only when the store itself failed.
  domain::Result<bool> runOnce(domain::Lane lane, const std::string& worker);

  // The shutdown deadline passed: every running attempt is asked to stop, and each job whose
  // attempt does not finish goes back to pending without the attempt counted (job table:
  // shutdown_release). runOnce claims nothing afterwards. Returns at once; the attempts end on
  // their threads.
  void releaseRunning();

  // The job types no handler was registered for.
  std::vector<domain::JobType> unhandledTypes() const;

 private:
  // The table's next state after an attempt ended with `outcome`.
  domain::Status settle(const domain::Job& job, const std::string& worker,
                        const domain::Status& outcome, const AttemptNotes& notes,
                        bool cancelRequested, domain::Timestamp started);
  JobHandler* handlerOf(domain::JobType type) const;
  void log(const domain::Job& job, domain::LogLevel level, const std::string& message);
  JobHandler::Log logFor(const domain::Job& job);
  // Counts a finished attempt by outcome and observes its duration.
  void measure(const domain::Job& job, const char* outcome, domain::Timestamp started);
  // Raises `kind` (job.failed, when the table raised it) naming what the handler says it is about.
  void raiseJobFailed(const domain::Job& job, std::optional<domain::EventKind> kind,
                      const std::string& error);

  Ports p_;
  domain::JobPolicy policy_;
  std::map<domain::JobType, JobHandler*> handlers_;
  std::atomic<bool> releasing_{false};
  std::mutex runningMutex_;
  std::map<std::string, domain::StopSignal*> running_;  // by worker id, while its attempt runs
};

}  // namespace certsteward::services
