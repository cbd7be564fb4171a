// JobHandler: what one kind of job does when a worker runs it. The runner (IssuanceWorker)
// claims the job, keeps its heartbeat, writes the job log, applies the job table (retry with
// backoff, dead, released at shutdown) and counts the attempt; a handler only does the work of
// its types and says how it went. A new job type is a handler and one registration line in
// app/application.cpp.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "domain/job.hpp"
#include "domain/result.hpp"
#include "domain/stop_signal.hpp"
#include "domain/time.hpp"

namespace certsteward::domain {

// What an attempt tells the runner beside its outcome.
struct AttemptNotes {
  // Not started: something holds it (a CA's rate limit, another run of the same distribution)
  // until not_before; the attempt is not counted.
  bool deferred = false;
  std::optional<Timestamp> not_before;  // a Retry-After (with or without `deferred`)
};

class JobHandler {
 public:
  using Log = std::function<void(LogLevel, const std::string&)>;
  virtual ~JobHandler() = default;

  // The job types it runs (each type has one handler).
  virtual std::vector<JobType> types() const = 0;
  // One attempt at `job`. ok: the job completes; an error: the attempt failed (the runner
  // retries or ends it as the job table says). `stop` asks a long attempt to end early.
  // Thread-safe: attempts of different jobs run at once.
  virtual Status attempt(const Job& job, const StopSignal& stop, const Log& log,
                         AttemptNotes& notes) = 0;
  // `job` ended without its attempt ending — its worker was lost and the claim that found it
  // settled it dead or cancelled (job.status): whatever the handler left half-way is closed.
  virtual void abandoned(const Job& /*job*/) {}
};

}  // namespace certsteward::domain
