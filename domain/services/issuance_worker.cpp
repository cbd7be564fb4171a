// The certificate jobs.
#include "domain/services/issuance_worker.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>

#include "domain/notification_rules.hpp"
#include "domain/services/distribution_runner.hpp"
#include "domain/services/zone_routed_dns.hpp"

namespace certsteward::domain {

void IssuanceWorker::log(const Job& job, LogLevel level, const std::string& message) {
  (void)p_.logs.append(JobLogEntry{job.id, p_.clock.now(), level, message});
}

void IssuanceWorker::measure(const Job& job, const char* outcome, Timestamp started) {
  if (p_.metrics == nullptr) return;
  const auto now = p_.clock.now();
  const std::string type(nameOf(job.type));
  p_.metrics->increment(
      "certsteward_job_attempts_total",
      {{"type", type}, {"lane", std::string(nameOf(job.lane()))}, {"outcome", outcome}});
  p_.metrics->observe("certsteward_job_attempt_duration_seconds", {{"type", type}},
                      std::chrono::duration<double>(now - started).count());
  const bool certificateStored =
      std::string_view(outcome) == "succeeded" &&
      (job.type == JobType::issue_certificate || job.type == JobType::renew_certificate);
  if (certificateStored) {
    p_.metrics->observe("certsteward_issuance_latency_seconds", {{"type", type}},
                        std::chrono::duration<double>(now - job.created_at).count());
  }
}

void IssuanceWorker::raise(const Job& job, std::optional<EventKind> kind, const Id& resource,
                           const std::string& message, std::map<std::string, std::string> details,
                           Id subject) {
  if (!kind) return;
  auto raised = p_.notifier.notify(Event{{},
                                         *kind,
                                         job.project_id,
                                         resource,
                                         message,
                                         p_.clock.now(),
                                         std::move(details),
                                         std::move(subject)});
  if (!raised) {
    log(job, LogLevel::warn,
        "the " + std::string(nameOf(*kind)) +
            " event could not be recorded: " + raised.error().message);
  }
}

void IssuanceWorker::raiseJobFailed(const Job& job, std::optional<EventKind> kind,
                                    const std::string& error) {
  if (!kind) return;
  std::map<std::string, std::string> details{
      {"job.id", job.id}, {"job.type", std::string(nameOf(job.type))}, {"reason", error}};
  Id subject = job.id;
  if (job.certificate_id) {
    subject = *job.certificate_id;
    if (auto cert = p_.certificates.get(job.project_id, *job.certificate_id)) {
      details.merge(certificateVariables(*cert, p_.clock.now()));
    }
  }
  if (const auto d = job.payload.find(kDistributionIdPayload); d != job.payload.end()) {
    subject = d->second;
    details["distribution.id"] = d->second;
  } else if (job.lane() == Lane::distribution && job.certificate_id) {
    // Delivering every distribution of the certificate: its own subject, so a renewal's
    // failure and recovery are not mixed with it.
    subject = "distribution-job:" + *job.certificate_id;
  }
  std::string about;
  if (const auto cn = details.find("certificate.common_name"); cn != details.end()) {
    about = " (" + cn->second + ")";
  }
  raise(job, kind, job.id, std::string(nameOf(job.type)) + about + " is dead: " + error,
        std::move(details), std::move(subject));
}

Status IssuanceWorker::certificateEvent(const Job& job, CertificateEvent event,
                                        const CertificateContext& ctx, Certificate* issued) {
  if (!job.certificate_id) return {};
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto cert = p_.certificates.get(job.project_id, *job.certificate_id);
    if (!cert) return cert.error();
    if (issued != nullptr) {
      cert->certificate_pem = issued->certificate_pem;
      cert->chain_pem = issued->chain_pem;
      cert->private_key_sealed = issued->private_key_sealed;
      cert->serial_number = issued->serial_number;
      cert->issued_at = issued->issued_at;
    }
    auto applied = applyCertificateEvent(*cert, event, ctx);
    if (!applied) return applied.error();
    cert->updated_at = ctx.now;
    auto stored = p_.certificates.update(*cert);
    if (stored) {
      if (*applied) {
        auto details = certificateVariables(*cert, ctx.now);
        std::string message = cert->common_name + ": " + ctx.error;
        if (**applied == EventKind::cert_issued || **applied == EventKind::cert_renewed) {
          message = cert->common_name +
                    (**applied == EventKind::cert_issued ? " was issued" : " was renewed") +
                    ", serial " + cert->serial_number + ", expires at " +
                    details["certificate.expires_at"];
        } else {
          message = cert->common_name + ": renewal failed: " + ctx.error;
          details["reason"] = ctx.error;
        }
        raise(job, *applied, cert->id, message, std::move(details));
      }
      return {};
    }
    if (stored.error().code != ErrorCode::conflict) return stored.error();
  }
  return makeError(ErrorCode::unavailable, "the certificate kept changing; try again");
}

void IssuanceWorker::queueCleanups(
    const Job& job, const std::vector<std::pair<ports::TxtRecord, std::string>>& failed) {
  for (const auto& [record, why] : failed) {
    Job cleanup =
        newJob(p_.ids.next(), job.project_id, JobType::cleanup_dns, p_.clock.now(), policy_);
    cleanup.parent_id = job.id;
    cleanup.idempotency_key = "cleanup-dns:" + record.name + ":" + record.value;
    cleanup.payload = {{"name", record.name}, {"value", record.value}};
    auto queued = p_.jobs.enqueue(cleanup);
    log(job, LogLevel::warn,
        "the TXT record " + record.name + " could not be removed (" + why + "): " +
            (queued ? "cleanup_dns job " + queued->job.id + " will retry"
                    : "and no cleanup job could be queued: " + queued.error().message));
  }
}

std::vector<std::string> IssuanceWorker::registeredDomains(
    const std::vector<std::string>& names) const {
  std::vector<std::string> out;
  for (const auto& name : names) {
    auto domain = p_.suffixes->registeredDomain(name);
    if (std::find(out.begin(), out.end(), domain) == out.end()) out.push_back(std::move(domain));
  }
  return out;
}

std::optional<CaActivity> IssuanceWorker::activeRateLimit(const Job& job,
                                                          const AcmeAccount& account,
                                                          const std::vector<std::string>& domains) {
  std::optional<CaActivity> holding;
  for (const auto& domain : domains) {
    auto hold =
        p_.caActivity->activeHold(account.directory_url, domain, account.id, p_.clock.now());
    if (!hold) {  // the order goes ahead: the CA itself will say if the limit still holds
      log(job, LogLevel::warn,
          "the CA's rate limits for " + domain + " could not be read: " + hold.error().message);
      continue;
    }
    if (*hold && (!holding || *(*hold)->retry_until > *holding->retry_until)) holding = **hold;
  }
  return holding;
}

void IssuanceWorker::recordCaActivity(const Job& job, const AcmeAccount& account,
                                      const std::vector<std::string>& domains,
                                      const ports::IssueReport& report, bool issued,
                                      AttemptNotes& notes) {
  const auto now = p_.clock.now();
  if (report.rate_limited && report.retry_after) notes.not_before = now + *report.retry_after;
  std::vector<CaActivity> records;
  const auto add = [&](const std::string& domain, CaActivityKind kind, std::string detail) {
    CaActivity a;
    a.id = p_.ids.next();
    a.directory_url = account.directory_url;
    a.account_id = account.id;
    a.registered_domain = domain;
    a.kind = kind;
    a.at = now;
    a.project_id = job.project_id;
    a.detail = std::move(detail);
    if (kind == CaActivityKind::rate_limited) a.retry_until = notes.not_before;
    records.push_back(std::move(a));
  };
  for (const auto& domain : domains) {
    for (int i = 0; i < report.orders_created; ++i)
      add(domain, CaActivityKind::order_created, {});
    if (issued) add(domain, CaActivityKind::certificate_issued, {});
    // The CA did not say which registered domain it limited: every one of the order holds back.
    if (report.rate_limited) add(domain, CaActivityKind::rate_limited, report.rate_limit_detail);
  }
  for (const auto& name : report.failed_validations) {
    add(p_.suffixes->registeredDomain(name), CaActivityKind::validation_failed, name);
  }
  for (const auto& record : records) {
    if (auto stored = p_.caActivity->record(record); !stored) {
      log(job, LogLevel::warn,
          "the CA's " + std::string(nameOf(record.kind)) + " for " + record.registered_domain +
              " could not be recorded: " + stored.error().message);
    }
  }
  if (report.rate_limited) {
    log(job, LogLevel::warn,
        notes.not_before
            ? "the CA asks not to retry before " + formatTimestamp(*notes.not_before) +
                  ": no order for these domains goes to it through this account before then"
            : "the CA refused with a rate limit and named no time: the usual backoff applies");
  }
}

IssuanceWorker::IssuanceWorker(Ports ports, JobPolicy policy, Duration dnsTimeout)
    : p_(std::move(ports)), policy_(policy), dnsTimeout_(dnsTimeout) {
  for (JobHandler* handler : p_.handlers) {
    for (const JobType type : handler->types())
      handlers_[type] = handler;
  }
}

Status IssuanceWorker::attempt(const Job& job, const StopSignal& stop, AttemptNotes& notes) {
  if (const auto handler = handlers_.find(job.type); handler != handlers_.end()) {
    return handler->second->attempt(
        job, stop, [&](LogLevel level, const std::string& m) { log(job, level, m); }, notes);
  }
  if (job.type != JobType::issue_certificate && job.type != JobType::renew_certificate) {
    return makeError(
        ErrorCode::failed_precondition,
        "this build has no handler for " + std::string(nameOf(job.type)) + " jobs yet");
  }
  if (!job.certificate_id) return makeError(ErrorCode::failed_precondition, "no certificate");
  auto cert = p_.certificates.get(job.project_id, *job.certificate_id);
  if (!cert) return cert.error();
  const bool renewal = job.type == JobType::renew_certificate;

  // The ACME account: the certificate's, else the project's first.
  Id accountId;
  if (cert->acme_account_id) {
    accountId = *cert->acme_account_id;
  } else {
    auto accounts = p_.accounts.list(job.project_id, PageRequest{1, 1});
    if (!accounts) return accounts.error();
    if (accounts->items.empty()) {
      return makeError(ErrorCode::failed_precondition,
                       "the project has no ACME account: add one before issuing");
    }
    accountId = accounts->items.front().id;
  }
  auto account = p_.accounts.get(job.project_id, accountId);
  if (!account) return account.error();
  std::vector<std::string> names = cert->sans;
  if (std::find(names.begin(), names.end(), cert->common_name) == names.end()) {
    names.insert(names.begin(), cert->common_name);
  }
  // A rate limit the CA announced for these domains through this account: nothing is sent
  // (not even a registration) and the certificate keeps its state until the job runs.
  const bool countQuotas = p_.caActivity != nullptr && p_.suffixes != nullptr;
  const auto domains = countQuotas ? registeredDomains(names) : std::vector<std::string>();
  if (countQuotas) {
    if (auto holding = activeRateLimit(job, *account, domains)) {
      notes.deferred = true;
      notes.not_before = holding->retry_until;
      return makeError(
          ErrorCode::resource_exhausted,
          "the CA's rate limit for " + holding->registered_domain + " holds until " +
              formatTimestamp(*holding->retry_until) + " (" +
              (holding->project_id == job.project_id ? holding->detail
                                                     : std::string("refused for another project")) +
              ")",
          "rateLimited");
    }
  }
  if (renewal && cert->status == CertificateStatus::renewal_pending) {
    if (auto s = certificateEvent(job, CertificateEvent::renewal_started,
                                  CertificateContext{p_.clock.now(), "", {}, {}, false, {}});
        !s) {
      return s;
    }
  }
  if (!account->is_registered || account->account_url.empty()) {
    log(job, LogLevel::info,
        "registering ACME account '" + account->name + "' at " + account->directory_url);
    auto state = p_.issuer.registerAccount(*account);
    if (!state) return state.error();
    account->account_url = state->account_url;
    if (!state->key_sealed.empty()) account->key_sealed = state->key_sealed;
    account->status = state->status.empty() ? "valid" : state->status;
    account->is_registered = true;
    account->last_validated_at = p_.clock.now();
    account->updated_at = p_.clock.now();
    if (auto s = p_.accounts.update(*account); !s) return s;
  }

  log(job, LogLevel::info,
      std::string(renewal ? "renewing" : "ordering") + " a certificate for " +
          std::to_string(names.size()) + " name(s) from " + account->directory_url);
  ZoneRoutedDns dns(
      {p_.zones, p_.dnsCredentials, p_.dnsProviders, p_.secrets, p_.clock, p_.background},
      job.project_id, stop);
  ports::IssueReport report;
  auto issued =
      p_.issuer.issue(ports::IssueRequest{*account, names, cert->key_type, &stop, &report}, dns);
  queueCleanups(job, dns.failedCleanups());
  if (countQuotas) {
    recordCaActivity(job, *account, domains, report, issued.ok(), notes);
  }
  if (!issued) return issued.error();
  auto sealedKey = p_.secrets.seal(issued->private_key_pem);
  if (!sealedKey) return sealedKey.error();
  Certificate material;
  material.certificate_pem = issued->certificate_pem;
  material.chain_pem = issued->chain_pem;
  material.private_key_sealed = *sealedKey;
  material.serial_number = issued->serial_number;
  material.issued_at = p_.clock.now();
  bool hasDistributions = false;
  if (p_.distributions != nullptr) {
    auto distributions = p_.distributions->listForCertificate(job.project_id, cert->id);
    if (!distributions) return distributions.error();
    hasDistributions = !distributions->empty();
  }
  CertificateContext ctx{p_.clock.now(),   "", issued->expires_at, issued->suggested_renewal_at,
                         hasDistributions, {}};
  if (auto s = certificateEvent(job, renewal ? CertificateEvent::renewed : CertificateEvent::issued,
                                ctx, &material);
      !s) {
    return s;
  }
  log(job, LogLevel::info,
      "issued: serial " + issued->serial_number + ", valid until " +
          formatTimestamp(issued->expires_at));
  if (hasDistributions) {  // deliver the new certificate now; the sweep catches what this misses
    auto stored = p_.certificates.get(job.project_id, cert->id);
    if (stored) {
      Job deliver = newJob(p_.ids.next(), job.project_id, JobType::distribution_execute,
                           p_.clock.now(), policy_);
      deliver.certificate_id = cert->id;
      deliver.parent_id = job.id;
      deliver.idempotency_key = distributionIdempotencyKey(*stored);
      auto queued = p_.jobs.enqueue(deliver);
      log(job, queued ? LogLevel::info : LogLevel::warn,
          queued ? "distribution job " + queued->job.id + " queued"
                 : "the distribution job could not be queued (the sweep will): " +
                       queued.error().message);
    }
  }
  return {};
}

void IssuanceWorker::releaseRunning() {
  releasing_ = true;
  std::lock_guard lock(runningMutex_);
  for (auto& [worker, stop] : running_)
    stop->request();
}

Result<bool> IssuanceWorker::runOnce(Lane lane, const std::string& worker) {
  if (releasing_) return false;
  auto claim = p_.jobs.claim(lane, JobContext{p_.clock.now(), worker, "", policy_});
  if (!claim) return claim.error();
  for (const auto& settled : claim->settled) {  // lost their worker and ran out of attempts
    raiseJobFailed(settled.job, settled.raised, settled.job.error_msg);
    if (const auto handler = handlers_.find(settled.job.type); handler != handlers_.end()) {
      handler->second->abandoned(settled.job);
    }
    if (settled.job.status == JobStatus::dead) {
      (void)certificateEvent(
          settled.job, CertificateEvent::attempts_exhausted,
          CertificateContext{p_.clock.now(), settled.job.error_msg, {}, {}, false, {}});
    }
  }
  if (!claim->claimed) return false;
  const Job job = *claim->claimed;
  log(job, LogLevel::info,
      "attempt " + std::to_string(job.attempts) + " of " + std::to_string(job.max_attempts) +
          " started by " + worker);
  // The heartbeat: while the attempt runs, the lock is extended every third of its lifetime, so
  // a slow CA never lets another worker take the job; a cancel request is noticed there.
  // A cancel, or the shutdown deadline, raises `stop`: the attempt then ends at its next step.
  std::atomic<bool> cancelRequested{false};
  StopSignal stop;
  {
    std::lock_guard lock(runningMutex_);
    running_[worker] = &stop;
    if (releasing_) stop.request();
  }
  Status outcome;
  AttemptNotes notes;
  const Timestamp started = p_.clock.now();
  p_.background.whileRunning(
      policy_.lock_ttl / 3,
      [&] {
        auto beat = p_.jobs.apply(job.id, JobEvent::heartbeat,
                                  JobContext{p_.clock.now(), worker, "", policy_});
        if (beat && beat->job.cancel_requested) {
          cancelRequested = true;
          stop.request();
        }
      },
      [&] { outcome = attempt(job, stop, notes); });
  {
    std::lock_guard lock(runningMutex_);
    running_.erase(worker);
  }
  const auto now = p_.clock.now();
  // Stopped by the shutdown deadline: the job goes back to pending, the attempt not counted.
  if (releasing_ && !outcome && !cancelRequested) {
    auto released =
        p_.jobs.apply(job.id, JobEvent::shutdown_release, JobContext{now, worker, "", policy_});
    if (released) {
      measure(job, "released", started);
      log(job, LogLevel::warn,
          "the worker stopped before the attempt finished (" + outcome.error().message +
              "): back to pending, the attempt is not counted");
      return true;
    }
  }
  // Cancelled while running: a failed attempt is not retried. A finished one stands — its
  // certificate is already stored.
  if (cancelRequested && !outcome) {
    auto stopped =
        p_.jobs.apply(job.id, JobEvent::cancel_observed, JobContext{now, worker, "", policy_});
    if (stopped) {
      measure(job, "cancelled", started);
      log(job, LogLevel::warn, "cancelled while running: " + outcome.error().message);
      return true;
    }
  }
  // Held back by a rate limit the CA announced: nothing was sent; the attempt is not counted.
  if (notes.deferred && !outcome) {
    JobContext ctx{now, worker, outcome.error().message, policy_};
    ctx.not_before = notes.not_before;
    if (p_.jobs.apply(job.id, JobEvent::defer, ctx)) {
      measure(job, "deferred", started);
      log(job, LogLevel::warn,
          outcome.error().message + ": the job waits until then, the attempt is not counted");
      return true;
    }
  }
  if (outcome) {
    if (auto done = p_.jobs.apply(job.id, JobEvent::succeed, JobContext{now, worker, "", policy_});
        !done) {
      return done.error();
    }
    measure(job, "succeeded", started);
    log(job, LogLevel::info, "succeeded");
    return true;
  }
  const std::string error = outcome.error().message;
  log(job, LogLevel::error, error);
  JobContext failure{now, worker, error, policy_};
  failure.not_before = notes.not_before;  // the CA's Retry-After, when it sent one
  auto failed = p_.jobs.apply(job.id, JobEvent::fail, failure);
  if (!failed) return failed.error();
  const bool dead = failed->job.status == JobStatus::dead;
  measure(job,
          dead                                         ? "dead"
          : failed->job.status == JobStatus::cancelled ? "cancelled"
                                                       : "retrying",
          started);
  if (dead) log(job, LogLevel::error, "no attempts left: the job is dead");
  raiseJobFailed(job, failed->raised, error);
  (void)certificateEvent(
      job, dead ? CertificateEvent::attempts_exhausted : CertificateEvent::attempt_failed,
      CertificateContext{now, error, {}, {}, false, {}});
  return true;
}

}  // namespace certsteward::domain
