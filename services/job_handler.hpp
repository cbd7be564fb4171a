// JobHandler: what one kind of job does when a worker runs it. The JobRunner claims the job,
// keeps its heartbeat, writes the job log, applies the job table (retry with backoff, dead,
// released at shutdown), counts the attempt and raises job.failed; a handler only does the work
// of its types, says how it went, and closes what its job leaves behind when the job fails. A
// new job type is a handler and one registration line in app/application.cpp.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/events.hpp>
#include <certsteward/domain/job.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/stop_signal.hpp>
#include <certsteward/domain/time.hpp>
#include <certsteward/ports/notifier.hpp>

namespace certsteward::services {

// What an attempt tells the runner beside its outcome.
struct AttemptNotes {
  // Not started: something holds it (a CA's rate limit, another run of the same distribution)
  // until not_before; the attempt is not counted.
  bool deferred = false;
  std::optional<domain::Timestamp> not_before;  // a Retry-After (with or without `deferred`)
  // The failure cannot be helped by retrying (outside the project's policy): the job ends dead.
  bool final_failure = false;
};

// Whom a job.failed event is about (what would recover: the notification state's subject) and
// what it says of it beyond the job's id, type and reason.
struct JobFailureSubject {
  domain::Id subject;
  std::map<std::string, std::string> details;
};

class JobHandler {
 public:
  // Appends a line to the job's log.
  using Log = std::function<void(domain::LogLevel, const std::string&)>;
  virtual ~JobHandler() = default;

  // The job types it runs (each type has one handler).
  virtual std::vector<domain::JobType> types() const = 0;
  // One attempt at `job`. ok: the job completes; an error: the attempt failed (the runner
  // retries or ends it as the job table says). `stop` asks a long attempt to end early.
  // Thread-safe: attempts of different jobs run at once; so do the hooks below.
  virtual domain::Status attempt(const domain::Job& job, const domain::StopSignal& stop,
                                 const Log& log, AttemptNotes& notes) = 0;
  // A failed attempt was recorded: `job` as the table left it (retrying, dead, or cancelled).
  virtual void attemptFailed(const domain::Job& /*job*/, const std::string& /*error*/,
                             const Log& /*log*/) {}
  // `job` ended without its attempt ending — its worker was lost and the claim that found it
  // settled it dead or cancelled (job.status): whatever the handler left half-way is closed.
  virtual void abandoned(const domain::Job& /*job*/, const Log& /*log*/) {}
  // What a job.failed event about `job` names: by default the job itself.
  virtual JobFailureSubject failureSubject(const domain::Job& job) const { return {job.id, {}}; }
};

// Hands `event` to the notifier; a failure to record it goes to the job's log.
void raiseForJob(ports::Notifier& notifier, domain::Event event, const JobHandler::Log& log);

}  // namespace certsteward::services
