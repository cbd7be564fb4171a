// Issuance and renewal.
#include <certsteward/services/issuance_job_handler.hpp>

#include <algorithm>
#include <memory>

#include <certsteward/domain/notification_rules.hpp>
#include <certsteward/services/certificate_job_subject.hpp>
#include <certsteward/services/distribution_runner.hpp>
#include <certsteward/services/http01_responders.hpp>
#include <certsteward/services/zone_routed_dns.hpp>

namespace certsteward::services {

JobFailureSubject IssuanceJobHandler::failureSubject(const domain::Job& job) const {
  return certificateJobSubject(p_.certificates, p_.clock, job);
}

domain::Status IssuanceJobHandler::certificateEvent(const domain::Job& job,
                                                    domain::CertificateEvent event,
                                                    const domain::CertificateContext& ctx,
                                                    const Log& log,
                                                    const domain::Certificate* issued) {
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
        const domain::EventKind kind = **applied;
        auto details = certificateVariables(*cert, ctx.now);
        std::string message;
        if (kind == domain::EventKind::cert_issued || kind == domain::EventKind::cert_renewed) {
          message = cert->common_name +
                    (kind == domain::EventKind::cert_issued ? " was issued" : " was renewed") +
                    ", serial " + cert->serial_number + ", expires at " +
                    details["certificate.expires_at"];
        } else {
          message = cert->common_name + ": renewal failed: " + ctx.error;
          details["reason"] = ctx.error;
        }
        raiseForJob(p_.notifier,
                    domain::Event{{},
                                  kind,
                                  job.project_id,
                                  cert->id,
                                  message,
                                  p_.clock.now(),
                                  std::move(details),
                                  {}},
                    log);
      }
      return {};
    }
    if (stored.error().code != domain::ErrorCode::conflict) return stored.error();
  }
  return makeError(domain::ErrorCode::unavailable, "the certificate kept changing; try again");
}

void IssuanceJobHandler::queueCleanups(
    const domain::Job& job, const std::vector<std::pair<ports::TxtRecord, std::string>>& failed,
    const Log& log) {
  for (const auto& [record, why] : failed) {
    domain::Job cleanup = newJob(p_.ids.next(), job.project_id, domain::JobType::cleanup_dns,
                                 p_.clock.now(), policy_);
    cleanup.parent_id = job.id;
    cleanup.idempotency_key = "cleanup-dns:" + record.name + ":" + record.value;
    cleanup.payload = {{"name", record.name}, {"value", record.value}};
    auto queued = p_.jobs.enqueue(cleanup);
    log(domain::LogLevel::warn,
        "the TXT record " + record.name + " could not be removed (" + why + "): " +
            (queued ? "cleanup_dns job " + queued->job.id + " will retry"
                    : "and no cleanup job could be queued: " + queued.error().message));
  }
}

void IssuanceJobHandler::queueDistribution(const domain::Job& job, const domain::Id& certificateId,
                                           const Log& log) {
  auto stored = p_.certificates.get(job.project_id, certificateId);
  if (!stored) return;  // the sweep delivers it
  domain::Job deliver = newJob(p_.ids.next(), job.project_id, domain::JobType::distribution_execute,
                               p_.clock.now(), policy_);
  deliver.certificate_id = certificateId;
  deliver.parent_id = job.id;
  deliver.idempotency_key = distributionIdempotencyKey(*stored);
  auto queued = p_.jobs.enqueue(deliver);
  log(queued ? domain::LogLevel::info : domain::LogLevel::warn,
      queued
          ? "distribution job " + queued->job.id + " queued"
          : "the distribution job could not be queued (the sweep will): " + queued.error().message);
}

domain::Status IssuanceJobHandler::attempt(const domain::Job& job, const domain::StopSignal& stop,
                                           const Log& log, AttemptNotes& notes) {
  if (!job.certificate_id)
    return makeError(domain::ErrorCode::failed_precondition, "no certificate");
  auto cert = p_.certificates.get(job.project_id, *job.certificate_id);
  if (!cert) return cert.error();
  const bool renewal = job.type == domain::JobType::renew_certificate;

  // The ACME account: the certificate's, else the project's first.
  domain::Id accountId;
  if (cert->acme_account_id) {
    accountId = *cert->acme_account_id;
  } else {
    auto accounts = p_.accounts.list(job.project_id, domain::PageRequest{1, 1});
    if (!accounts) return accounts.error();
    if (accounts->items.empty()) {
      return makeError(domain::ErrorCode::failed_precondition,
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
  const auto domains = p_.caActivity != nullptr ? p_.caActivity->registeredDomains(names)
                                                : std::vector<std::string>();
  if (p_.caActivity != nullptr) {
    if (auto holding = p_.caActivity->activeRateLimit(*account, domains, log)) {
      notes.deferred = true;
      notes.not_before = holding->retry_until;
      return makeError(
          domain::ErrorCode::resource_exhausted,
          "the CA's rate limit for " + holding->registered_domain + " holds until " +
              domain::formatTimestamp(*holding->retry_until) + " (" +
              (holding->project_id == job.project_id ? holding->detail
                                                     : std::string("refused for another project")) +
              ")",
          "rateLimited");
    }
  }
  if (renewal && cert->status == domain::CertificateStatus::renewal_pending) {
    if (auto s = certificateEvent(job, domain::CertificateEvent::renewal_started,
                                  domain::CertificateContext{p_.clock.now(), "", {}, {}, false, {}},
                                  log);
        !s) {
      return s;
    }
  }
  if (!account->is_registered || account->account_url.empty()) {
    log(domain::LogLevel::info,
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

  log(domain::LogLevel::info, std::string(renewal ? "renewing" : "ordering") +
                                  " a certificate for " + std::to_string(names.size()) +
                                  " name(s) from " + account->directory_url);
  ZoneRoutedDns dns({p_.zones, p_.dnsCredentials, p_.dnsProviders, p_.secrets, p_.clock,
                     p_.background, p_.lookup},
                    job.project_id, stop);
  ports::IssueReport report;
  ports::IssueRequest request{*account, names, cert->key_type, &stop, &report};
  request.challenge = cert->challenge;
  std::unique_ptr<ports::Http01Responder> http01;
  if (cert->challenge == domain::ChallengeType::http_01) {
    if (!cert->http01_module_config_id.empty() && p_.webroots != nullptr) {
      log(domain::LogLevel::info,
          "HTTP-01 through the webroot of module configuration " + cert->http01_module_config_id);
      http01 = std::make_unique<WebrootHttp01>(*p_.webroots, job.project_id,
                                               cert->http01_module_config_id, log);
    } else if (cert->http01_module_config_id.empty() && p_.challengeTokens != nullptr) {
      log(domain::LogLevel::info, "HTTP-01 answered by this service (acme.http01_listen)");
      http01 = std::make_unique<ServedHttp01>(*p_.challengeTokens, p_.clock, p_.challengeTokenTtl);
    } else if (cert->http01_module_config_id.empty()) {
      return makeError(domain::ErrorCode::failed_precondition,
                       "this server does not answer HTTP-01 itself (acme.http01_listen is not set "
                       "on the instance that ran the job): set it, or give the certificate a "
                       "webroot configuration");
    } else {
      return makeError(domain::ErrorCode::failed_precondition,
                       "this server cannot write HTTP-01 files into a webroot");
    }
    request.http01 = http01.get();
  }
  auto issued = p_.issuer.issue(request, dns);
  for (const auto& [name, route] : dns.routes()) {
    if (!route.cnames.empty()) {
      log(domain::LogLevel::info, name + " is delegated by CNAME to " + route.record_name +
                                      ": its record went to the zone " + route.zone.domain);
    }
    if (!route.note.empty()) log(domain::LogLevel::warn, route.note);
  }
  queueCleanups(job, dns.failedCleanups(), log);
  if (p_.caActivity != nullptr) {
    p_.caActivity->record(job, *account, domains, report, issued.ok(), notes, log);
  }
  if (!issued) return issued.error();
  auto sealedKey = p_.secrets.seal(issued->private_key_pem);
  if (!sealedKey) return sealedKey.error();
  domain::Certificate material;
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
  domain::CertificateContext ctx{
      p_.clock.now(), "", issued->expires_at, issued->suggested_renewal_at, hasDistributions, {}};
  if (auto s = certificateEvent(
          job, renewal ? domain::CertificateEvent::renewed : domain::CertificateEvent::issued, ctx,
          log, &material);
      !s) {
    return s;
  }
  if (p_.metrics != nullptr) {
    p_.metrics->observe("certsteward_issuance_latency_seconds",
                        {{"type", std::string(nameOf(job.type))}},
                        std::chrono::duration<double>(p_.clock.now() - job.created_at).count());
  }
  log(domain::LogLevel::info, "issued: serial " + issued->serial_number + ", valid until " +
                                  domain::formatTimestamp(issued->expires_at));
  // Deliver the new certificate now; the sweep catches what this misses.
  if (hasDistributions) queueDistribution(job, cert->id, log);
  return {};
}

void IssuanceJobHandler::attemptFailed(const domain::Job& job, const std::string& error,
                                       const Log& log) {
  (void)certificateEvent(job,
                         job.status == domain::JobStatus::dead
                             ? domain::CertificateEvent::attempts_exhausted
                             : domain::CertificateEvent::attempt_failed,
                         domain::CertificateContext{p_.clock.now(), error, {}, {}, false, {}}, log);
}

void IssuanceJobHandler::abandoned(const domain::Job& job, const Log& log) {
  if (job.status != domain::JobStatus::dead) return;
  (void)certificateEvent(
      job, domain::CertificateEvent::attempts_exhausted,
      domain::CertificateContext{p_.clock.now(), job.error_msg, {}, {}, false, {}}, log);
}

}  // namespace certsteward::services
