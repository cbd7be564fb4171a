// The job table, applied to one attempt.
#include <certsteward/services/job_runner.hpp>

#include <certsteward/domain/enum_names.hpp>

namespace certsteward::services {

JobRunner::JobRunner(Ports ports, domain::JobPolicy policy)
    : p_(std::move(ports)), policy_(policy) {
  for (JobHandler* handler : p_.handlers) {
    for (const domain::JobType type : handler->types())
      handlers_[type] = handler;
  }
}

std::vector<domain::JobType> JobRunner::unhandledTypes() const {
  std::vector<domain::JobType> out;
  for (const domain::JobType type : domain::everyValue<domain::JobType>()) {
    if (handlerOf(type) == nullptr) out.push_back(type);
  }
  return out;
}

JobHandler* JobRunner::handlerOf(domain::JobType type) const {
  const auto found = handlers_.find(type);
  return found == handlers_.end() ? nullptr : found->second;
}

void JobRunner::log(const domain::Job& job, domain::LogLevel level, const std::string& message) {
  (void)p_.logs.append(domain::JobLogEntry{job.id, p_.clock.now(), level, message});
}

JobHandler::Log JobRunner::logFor(const domain::Job& job) {
  return [this, &job](domain::LogLevel level, const std::string& message) {
    log(job, level, message);
  };
}

void JobRunner::measure(const domain::Job& job, const char* outcome, domain::Timestamp started) {
  if (p_.metrics == nullptr) return;
  const std::string type(nameOf(job.type));
  p_.metrics->increment(
      "certsteward_job_attempts_total",
      {{"type", type}, {"lane", std::string(nameOf(job.lane()))}, {"outcome", outcome}});
  p_.metrics->observe("certsteward_job_attempt_duration_seconds", {{"type", type}},
                      std::chrono::duration<double>(p_.clock.now() - started).count());
}

void JobRunner::raiseJobFailed(const domain::Job& job, std::optional<domain::EventKind> kind,
                               const std::string& error) {
  if (!kind) return;
  const JobHandler* handler = handlerOf(job.type);
  JobFailureSubject about =
      handler != nullptr ? handler->failureSubject(job) : JobFailureSubject{job.id, {}};
  auto details = std::move(about.details);
  details["job.id"] = job.id;
  details["job.type"] = std::string(nameOf(job.type));
  details["reason"] = error;
  std::string name;
  if (const auto cn = details.find("certificate.common_name"); cn != details.end()) {
    name = " (" + cn->second + ")";
  }
  raiseForJob(p_.notifier,
              domain::Event{{},
                            *kind,
                            job.project_id,
                            job.id,
                            std::string(nameOf(job.type)) + name + " is dead: " + error,
                            p_.clock.now(),
                            std::move(details),
                            std::move(about.subject)},
              logFor(job));
}

void JobRunner::releaseRunning() {
  releasing_ = true;
  std::lock_guard lock(runningMutex_);
  for (auto& [worker, stop] : running_)
    stop->request();
}

domain::Result<bool> JobRunner::runOnce(domain::Lane lane, const std::string& worker) {
  if (releasing_) return false;
  auto claim = p_.jobs.claim(lane, domain::JobContext{p_.clock.now(), worker, "", policy_});
  if (!claim) return claim.error();
  for (const auto& settled : claim->settled) {  // lost their worker and ran out of attempts
    raiseJobFailed(settled.job, settled.raised, settled.job.error_msg);
    if (JobHandler* handler = handlerOf(settled.job.type)) {
      handler->abandoned(settled.job, logFor(settled.job));
    }
  }
  if (!claim->claimed) return false;
  const domain::Job job = *claim->claimed;
  log(job, domain::LogLevel::info,
      "attempt " + std::to_string(job.attempts) + " of " + std::to_string(job.max_attempts) +
          " started by " + worker);
  // The heartbeat: while the attempt runs, the lock is extended every third of its lifetime, so
  // a slow CA never lets another worker take the job; a cancel request is noticed there.
  // A cancel, or the shutdown deadline, raises `stop`: the attempt then ends at its next step.
  std::atomic<bool> cancelRequested{false};
  domain::StopSignal stop;
  {
    std::lock_guard lock(runningMutex_);
    running_[worker] = &stop;
    if (releasing_) stop.request();
  }
  domain::Status outcome;
  AttemptNotes notes;
  const domain::Timestamp started = p_.clock.now();
  JobHandler* handler = handlerOf(job.type);
  p_.background.whileRunning(
      policy_.lock_ttl / 3,
      [&] {
        auto beat = p_.jobs.apply(job.id, domain::JobEvent::heartbeat,
                                  domain::JobContext{p_.clock.now(), worker, "", policy_});
        if (beat && beat->job.cancel_requested) {
          cancelRequested = true;
          stop.request();
        }
      },
      [&] {
        outcome = handler != nullptr ? handler->attempt(job, stop, logFor(job), notes)
                                     : makeError(domain::ErrorCode::failed_precondition,
                                                 "this build has no handler for " +
                                                     std::string(nameOf(job.type)) + " jobs yet");
      });
  {
    std::lock_guard lock(runningMutex_);
    running_.erase(worker);
  }
  if (auto settled = settle(job, worker, outcome, notes, cancelRequested, started); !settled) {
    return settled.error();
  }
  return true;
}

domain::Status JobRunner::settle(const domain::Job& job, const std::string& worker,
                                 const domain::Status& outcome, const AttemptNotes& notes,
                                 bool cancelRequested, domain::Timestamp started) {
  const auto now = p_.clock.now();
  // Stopped by the shutdown deadline: the job goes back to pending, the attempt not counted.
  if (releasing_ && !outcome && !cancelRequested) {
    if (p_.jobs.apply(job.id, domain::JobEvent::shutdown_release,
                      domain::JobContext{now, worker, "", policy_})) {
      measure(job, "released", started);
      log(job, domain::LogLevel::warn,
          "the worker stopped before the attempt finished (" + outcome.error().message +
              "): back to pending, the attempt is not counted");
      return {};
    }
  }
  // Cancelled while running: a failed attempt is not retried. A finished one stands — its
  // work (a stored certificate, a delivered file) is done.
  if (cancelRequested && !outcome) {
    if (p_.jobs.apply(job.id, domain::JobEvent::cancel_observed,
                      domain::JobContext{now, worker, "", policy_})) {
      measure(job, "cancelled", started);
      log(job, domain::LogLevel::warn, "cancelled while running: " + outcome.error().message);
      return {};
    }
  }
  // Held back (a CA's rate limit, a busy distribution): nothing was done, the attempt is not
  // counted.
  if (notes.deferred && !outcome) {
    domain::JobContext ctx{now, worker, outcome.error().message, policy_};
    ctx.not_before = notes.not_before;
    if (p_.jobs.apply(job.id, domain::JobEvent::defer, ctx)) {
      measure(job, "deferred", started);
      log(job, domain::LogLevel::warn,
          outcome.error().message + ": the job waits until then, the attempt is not counted");
      return {};
    }
  }
  if (outcome) {
    if (auto done = p_.jobs.apply(job.id, domain::JobEvent::succeed,
                                  domain::JobContext{now, worker, "", policy_});
        !done) {
      return done.error();
    }
    measure(job, "succeeded", started);
    log(job, domain::LogLevel::info, "succeeded");
    return {};
  }
  const std::string error = outcome.error().message;
  log(job, domain::LogLevel::error, error);
  domain::JobContext failure{now, worker, error, policy_};
  failure.not_before = notes.not_before;  // the CA's Retry-After, when it sent one
  failure.final_failure = notes.final_failure;
  auto failed = p_.jobs.apply(job.id, domain::JobEvent::fail, failure);
  if (!failed) return failed.error();
  const bool dead = failed->job.status == domain::JobStatus::dead;
  measure(job,
          dead                                                 ? "dead"
          : failed->job.status == domain::JobStatus::cancelled ? "cancelled"
                                                               : "retrying",
          started);
  if (dead) {
    log(job, domain::LogLevel::error,
        notes.final_failure ? "retrying cannot help: the job is dead"
                            : "no attempts left: the job is dead");
  }
  raiseJobFailed(job, failed->raised, error);
  if (JobHandler* handler = handlerOf(job.type)) {
    handler->attemptFailed(failed->job, error, logFor(job));
  }
  return {};
}

}  // namespace certsteward::services
