// Issuance and renewal.
#include <certsteward/services/issuance_job_handler.hpp>

#include <algorithm>
#include <memory>

#include <certsteward/domain/notification_rules.hpp>
#include <certsteward/services/certificate_job_subject.hpp>
#include <certsteward/services/certificate_update.hpp>
#include <certsteward/services/distribution_runner.hpp>
#include <certsteward/services/http01_responders.hpp>
#include <certsteward/services/issuance_settings.hpp>
#include <certsteward/services/zone_routed_dns.hpp>

namespace certsteward::services {

JobFailureSubject IssuanceJobHandler::failureSubject(const domain::Job& job) const {
  return certificateJobSubject(p_.certificates, p_.clock, job);
}

domain::Status IssuanceJobHandler::certificateEvent(
    const domain::Job& job, domain::CertificateEvent event, const domain::CertificateContext& ctx,
    const Log& log, const domain::Certificate* issued,
    const std::function<void(domain::Certificate&)>& also) {
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
    if (also) also(*cert);
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

domain::Status IssuanceJobHandler::changeCertificate(
    const domain::Job& job, const std::function<void(domain::Certificate&)>& change) {
  if (!job.certificate_id) return {};
  auto changed = updateCertificate(p_.certificates, p_.clock, job.project_id, *job.certificate_id,
                                   [&](domain::Certificate& c) -> domain::Result<bool> {
                                     change(c);
                                     return true;
                                   });
  if (!changed) return changed.error();
  return {};
}

std::optional<domain::CaProvider> IssuanceJobHandler::providerOf(
    const domain::AcmeAccount& account) const {
  if (p_.providers == nullptr) return std::nullopt;
  auto list = p_.providers->get();
  if (!list || !*list) return std::nullopt;
  const auto* byId = domain::findCaProvider(**list, account.ca_provider_id);
  const auto* provider =
      byId != nullptr ? byId : domain::findCaProviderByUrl(**list, account.directory_url);
  if (provider == nullptr) return std::nullopt;
  return *provider;
}

void IssuanceJobHandler::reportFailover(const domain::Job& job, const domain::Certificate& cert,
                                        const domain::AcmeAccount& from,
                                        const domain::AcmeAccount& to, const std::string& why,
                                        const Log& log) {
  const std::string& toName = to.name;
  log(domain::LogLevel::warn, "failing over from ACME account '" + from.name + "' (" +
                                  from.directory_url + ") to '" + toName + "': " + why);
  auto details = certificateVariables(cert, p_.clock.now());
  details["from_account"] = from.name;
  details["to_account"] = toName;
  details["reason"] = why;
  raiseForJob(p_.notifier,
              domain::Event{{},
                            domain::EventKind::ca_failover,
                            job.project_id,
                            cert.id,
                            cert.common_name + ": the CA of ACME account '" + from.name +
                                "' failed (" + why + "); ordering through '" + toName + "'",
                            p_.clock.now(),
                            std::move(details),
                            {}},
              log);
  if (p_.audit != nullptr) {
    (void)p_.audit->record(nullptr, RequestContext{"", job.id}, "certificate.ca_failover",
                           "certificate", cert.id, job.project_id,
                           "from=" + from.id + " to=" + to.id + " job=" + job.id);
  }
}

namespace {

// How failover reads an order's error.
domain::CaOutcome outcomeOf(const domain::Error& e) {
  if (e.code == domain::ErrorCode::resource_exhausted) return domain::CaOutcome::rate_limited;
  if (e.reason == "caa") return domain::CaOutcome::caa_refused;
  if (e.code == domain::ErrorCode::unavailable &&
      (e.reason == ports::kCaUnreachable || e.reason == "serverInternal" ||
       e.reason.starts_with("http_5"))) {
    return domain::CaOutcome::unreachable;
  }
  return domain::CaOutcome::refused;
}

}  // namespace

domain::Result<ports::IssuedCertificate> IssuanceJobHandler::orderFrom(
    const domain::Job& job, const domain::Certificate& cert, domain::AcmeAccount& account,
    const std::optional<domain::CaProvider>& provider, const std::vector<std::string>& names,
    const domain::StopSignal& stop, const Log& log, ports::IssueReport& report) {
  const bool renewal = job.type == domain::JobType::renew_certificate;
  const auto registerAccount = [&]() -> domain::Status {
    log(domain::LogLevel::info,
        "registering ACME account '" + account.name + "' at " + account.directory_url);
    auto state = p_.issuer.registerAccount(account);
    if (!state) return state.error();
    account.account_url = state->account_url;
    if (!state->key_sealed.empty()) account.key_sealed = state->key_sealed;
    account.status = state->status.empty() ? "valid" : state->status;
    account.is_registered = true;
    account.last_validated_at = p_.clock.now();
    account.updated_at = p_.clock.now();
    return p_.accounts.update(account);
  };
  if (!account.is_registered || account.account_url.empty()) {
    if (auto s = registerAccount(); !s) return s.error();
  }
  log(domain::LogLevel::info, std::string(renewal ? "renewing" : "ordering") +
                                  " a certificate for " + std::to_string(names.size()) +
                                  " name(s) from " + account.directory_url +
                                  (cert.profile.empty() ? "" : " (profile " + cert.profile + ")"));
  ZoneRoutedDns dns({p_.zones, p_.dnsCredentials, p_.dnsProviders, p_.secrets, p_.clock,
                     p_.background, p_.lookup},
                    job.project_id, stop);
  ports::IssueRequest request{account, names, cert.key_type, &stop, &report};
  request.challenge = cert.challenge;
  // The profile goes to a CA whose directory lists it (a failover CA may not have it).
  if (!cert.profile.empty()) {
    if (!provider || domain::checkProfile(*provider, cert.profile).ok()) {
      request.profile = cert.profile;
    } else {
      log(domain::LogLevel::warn, "the CA provider " + provider->name + " does not offer profile " +
                                      cert.profile + ": ordered without a profile");
    }
  }
  request.preferred_chain = cert.preferred_chain;
  // `replaces` names a certificate of this CA only (another CA would refuse the order).
  if (renewal && (cert.issued_by_provider_id.empty() || !provider ||
                  cert.issued_by_provider_id == provider->id)) {
    request.replaces_certificate_pem = cert.certificate_pem;
  }
  std::unique_ptr<ports::Http01Responder> http01;
  if (cert.challenge == domain::ChallengeType::http_01) {
    if (!cert.http01_module_config_id.empty() && p_.webroots != nullptr) {
      log(domain::LogLevel::info,
          "HTTP-01 through the webroot of module configuration " + cert.http01_module_config_id);
      http01 = std::make_unique<WebrootHttp01>(*p_.webroots, job.project_id,
                                               cert.http01_module_config_id, log);
    } else if (cert.http01_module_config_id.empty() && p_.challengeTokens != nullptr) {
      log(domain::LogLevel::info, "HTTP-01 answered by this service (acme.http01_listen)");
      http01 = std::make_unique<ServedHttp01>(*p_.challengeTokens, p_.clock, p_.challengeTokenTtl);
    } else if (cert.http01_module_config_id.empty()) {
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
  if (!issued && issued.error().reason == "accountDoesNotExist") {
    // The CA forgot the account (a CA reset, a test CA restarted): registered again, once.
    log(domain::LogLevel::warn,
        "the CA no longer knows ACME account '" + account.name + "': registering it again");
    account.account_url.clear();
    account.is_registered = false;
    if (auto s = registerAccount(); !s) return s.error();
    request.account = account;
    issued = p_.issuer.issue(request, dns);
  }
  for (const auto& [name, route] : dns.routes()) {
    if (!route.cnames.empty()) {
      log(domain::LogLevel::info, name + " is delegated by CNAME to " + route.record_name +
                                      ": its record went to the zone " + route.zone.domain);
    }
    if (!route.note.empty()) log(domain::LogLevel::warn, route.note);
  }
  queueCleanups(job, dns.failedCleanups(), log);
  return issued;
}

domain::Status IssuanceJobHandler::stored(const domain::Job& job, const domain::Certificate& cert,
                                          const domain::AcmeAccount& account,
                                          const std::optional<domain::CaProvider>& provider,
                                          const std::vector<domain::Id>& preference,
                                          const domain::IssuancePolicy& policy,
                                          ports::IssuedCertificate issued, const Log& log) {
  const bool renewal = job.type == domain::JobType::renew_certificate;
  auto sealedKey = p_.secrets.seal(issued.private_key_pem);
  if (!sealedKey) return sealedKey.error();
  domain::Certificate material;
  material.certificate_pem = issued.certificate_pem;
  material.chain_pem = issued.chain_pem;
  material.private_key_sealed = *sealedKey;
  material.serial_number = issued.serial_number;
  material.issued_at = p_.clock.now();
  bool hasDistributions = false;
  if (p_.distributions != nullptr) {
    auto distributions = p_.distributions->listForCertificate(job.project_id, cert.id);
    if (!distributions) return distributions.error();
    hasDistributions = !distributions->empty();
  }
  const auto now = p_.clock.now();
  domain::CertificateContext ctx{
      now, "", issued.expires_at, issued.suggested_renewal_at, hasDistributions, {}};
  if (issued.not_before != domain::Timestamp{}) ctx.new_not_before = issued.not_before;
  const bool firstChoice = account.id == preference.front();
  const auto recordIssuer = [&](domain::Certificate& c) {
    // A CA that offers renewal information is asked again for the window (RFC 9773), spread
    // over a tenth of the interval by the certificate's id.
    c.ari_poll_at.reset();
    if (issued.suggested_renewal_at) {
      const double spread = static_cast<double>(std::hash<std::string>{}(c.id) % 1000) / 1000.0;
      c.ari_poll_at = domain::nextRenewalInfoPoll(now, std::nullopt, spread, false);
    }
    c.issued_by_account_id = account.id;
    c.issued_by_provider_id = provider ? provider->id : account.ca_provider_id;
    c.ca_failures = 0;
    if (firstChoice) {
      c.failover_account_id.clear();
      c.failover_at.reset();
    } else if (c.failover_account_id != account.id) {
      c.failover_account_id = account.id;
      c.failover_at = now;
    }
  };
  if (auto s = certificateEvent(
          job, renewal ? domain::CertificateEvent::renewed : domain::CertificateEvent::issued, ctx,
          log, &material, recordIssuer);
      !s) {
    return s;
  }
  if (p_.metrics != nullptr) {
    p_.metrics->observe("certsteward_issuance_latency_seconds",
                        {{"type", std::string(nameOf(job.type))}},
                        std::chrono::duration<double>(p_.clock.now() - job.created_at).count());
  }
  log(domain::LogLevel::info,
      "issued: serial " + issued.serial_number + ", valid until " +
          domain::formatTimestamp(issued.expires_at) + ", through ACME account '" + account.name +
          "'" + (issued.chain_issuer.empty() ? "" : ", chain to " + issued.chain_issuer) +
          (issued.replaced ? ", replacing the previous certificate (RFC 9773)" : ""));
  // What the CA issued, judged by the project's longest lifetime and by SC-081: reported (the
  // certificate is valid and stays stored).
  const auto notBefore = ctx.new_not_before.value_or(now);
  if (const auto violations = domain::lifetimeViolations(notBefore, issued.expires_at, policy);
      !violations.empty()) {
    raisePolicyEvent(
        job, cert, domain::EventKind::policy_violation,
        cert.common_name + ": " + violations.front().message + " (the project's max_lifetime_days)",
        violations.front().rule, log);
  }
  if (domain::exceedsSc081(notBefore, issued.expires_at)) {
    const auto days = [](domain::Duration d) {  // rounded up: 200 days and a second is 201
      return std::to_string(std::chrono::ceil<std::chrono::days>(d).count());
    };
    raisePolicyEvent(job, cert, domain::EventKind::policy_lifetime_exceeds_schedule,
                     cert.common_name + ": valid for " + days(issued.expires_at - notBefore) +
                         " days; CA/Browser Forum ballot SC-081 allows " +
                         days(domain::sc081MaxLifetime(notBefore)) + " for a certificate issued " +
                         domain::formatTimestamp(notBefore),
                     "sc081", log);
  }
  // Deliver the new certificate now; the sweep catches what this misses.
  if (hasDistributions) queueDistribution(job, cert.id, log);
  return {};
}

std::optional<domain::Error> IssuanceJobHandler::caaRefusal(
    const domain::Certificate& cert, const domain::AcmeAccount& account,
    const std::optional<domain::CaProvider>& provider, const std::vector<std::string>& names,
    CaaAnswers& answers, const Log& log) {
  if (p_.lookup == nullptr || !provider) return std::nullopt;
  if (provider->caa_identities.empty()) {
    log(domain::LogLevel::info, "CAA not checked before the order: the CA provider " +
                                    provider->name + " names no CAA identities");
    return std::nullopt;
  }
  const auto caa = checkCaa(*p_.lookup, names, provider->caa_identities, account.account_url,
                            domain::nameOf(cert.challenge), &answers);
  for (const auto& note : caa.notes)
    log(domain::LogLevel::warn, note);
  if (caa.allowed) return std::nullopt;
  return makeError(domain::ErrorCode::failed_precondition, caa.reason, "caa");
}

void IssuanceJobHandler::raisePolicyEvent(const domain::Job& job, const domain::Certificate& cert,
                                          domain::EventKind kind, const std::string& message,
                                          const std::string& rules, const Log& log) {
  log(domain::LogLevel::warn, message);
  auto details = certificateVariables(cert, p_.clock.now());
  details["rules"] = rules;
  raiseForJob(
      p_.notifier,
      domain::Event{
          {}, kind, job.project_id, cert.id, message, p_.clock.now(), std::move(details), {}},
      log);
}

domain::Status IssuanceJobHandler::attempt(const domain::Job& job, const domain::StopSignal& stop,
                                           const Log& log, AttemptNotes& notes) {
  if (!job.certificate_id)
    return makeError(domain::ErrorCode::failed_precondition, "no certificate");
  auto cert = p_.certificates.get(job.project_id, *job.certificate_id);
  if (!cert) return cert.error();
  const bool renewal = job.type == domain::JobType::renew_certificate;
  // An earlier attempt of this job stored what the CA issued, and its process stopped (a
  // kill -9, a power cut) before the job was marked done: nothing is ordered again.
  const bool waiting = cert->status != domain::CertificateStatus::active;
  if (!waiting && cert->issued_at && *cert->issued_at >= job.created_at) {
    log(domain::LogLevel::info, "already issued by an earlier attempt of this job, at " +
                                    domain::formatTimestamp(*cert->issued_at));
    return {};
  }

  auto issuance = projectIssuance(p_.projects, job.project_id);
  if (!issuance) return issuance.error();
  const auto& policy = issuance->policy;
  // The issuer preference: the certificate's accounts, else its account, else the project's
  // default preference, else the project's first account.
  auto ordering = orderingAccounts(p_.accounts, *cert, issuance->defaults);
  if (!ordering) return ordering.error();
  if (ordering->empty()) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "the project has no ACME account: add one before issuing");
  }
  std::vector<domain::Id> preference = std::move(*ordering);
  // The project's policy: a certificate outside it is not ordered (retrying cannot help), and
  // accounts of CA providers it does not allow are passed over.
  {
    auto providerIds = providerIdsOf(p_.accounts, p_.providers, job.project_id, preference);
    if (!providerIds) return providerIds.error();
    auto violations = domain::policyViolations(*cert, *providerIds, policy);
    const auto byProvider = std::find_if(violations.begin(), violations.end(), [](const auto& v) {
      return v.rule == "allowed_ca_provider_ids";
    });
    std::vector<domain::Id> allowed;
    for (std::size_t i = 0; i < preference.size(); ++i) {
      const auto& ids = policy.allowed_ca_provider_ids;
      const auto& provider = (*providerIds)[i];
      if (ids.empty() || std::find(ids.begin(), ids.end(), provider) != ids.end()) {
        allowed.push_back(preference[i]);
      } else if (provider.empty() && !p_.accounts.get(job.project_id, preference[i]).ok()) {
        allowed.push_back(preference[i]);  // gone: the loop below says so and passes it over
      } else {
        log(domain::LogLevel::warn,
            "ACME account " + preference[i] + " passed over: the project's policy does not allow " +
                (provider.empty() ? std::string("an account with no CA provider")
                                  : "its CA provider " + provider));
      }
    }
    if (byProvider != violations.end() && !allowed.empty()) violations.erase(byProvider);
    if (!violations.empty()) {
      auto refusal = domain::policyError(violations);
      std::string rules;
      for (const auto& v : violations)
        rules += (rules.empty() ? "" : ",") + v.rule;
      raisePolicyEvent(job, *cert, domain::EventKind::policy_violation,
                       cert->common_name + ": " + std::string(renewal ? "renewal" : "issuance") +
                           " stopped: " + refusal.message,
                       rules, log);
      notes.final_failure = true;
      return refusal;
    }
    preference = std::move(allowed);
  }
  const auto now = p_.clock.now();
  const auto order = domain::accountsToTry(*cert, preference, now, failover_);
  if (!cert->failover_account_id.empty() && cert->failover_at &&
      order.front() == preference.front() && preference.size() > 1) {
    log(domain::LogLevel::info, "trying the first choice of CA again (failed over " +
                                    domain::formatTimestamp(*cert->failover_at) + ")");
  }
  std::vector<std::string> names = cert->sans;
  if (std::find(names.begin(), names.end(), cert->common_name) == names.end()) {
    names.insert(names.begin(), cert->common_name);
  }
  const auto domains = p_.caActivity != nullptr ? p_.caActivity->registeredDomains(names)
                                                : std::vector<std::string>();
  bool started = false;
  std::optional<domain::Error> lastError;
  std::optional<domain::Timestamp> heldUntil;  // every account held by a rate limit: the first end
  bool allHeld = true;
  // A switch is reported when the next account is really asked: accounts passed over because
  // their provider is disabled or a rate limit holds them are not switches.
  std::optional<std::pair<domain::AcmeAccount, std::string>> pendingSwitch;
  CaaAnswers caaAnswers;  // each name's CAA looked up once per attempt
  for (std::size_t i = 0; i < order.size(); ++i) {
    auto account = p_.accounts.get(job.project_id, order[i]);
    if (!account) {
      if (account.error().code != domain::ErrorCode::not_found) return account.error();
      log(domain::LogLevel::warn, "ACME account " + order[i] + " no longer exists: passed over");
      lastError = makeError(domain::ErrorCode::failed_precondition,
                            "the certificate's ACME account " + order[i] + " no longer exists");
      allHeld = false;
      continue;
    }
    const auto provider = providerOf(*account);
    std::optional<domain::Error> failure;
    domain::CaOutcome outcome = domain::CaOutcome::refused;
    std::optional<ports::IssuedCertificate> issued;
    AttemptNotes accountNotes;  // what this account's answer says about retrying
    if (provider && !provider->enabled) {
      outcome = domain::CaOutcome::disabled;
      failure = makeError(domain::ErrorCode::failed_precondition,
                          "the CA provider " + provider->name + " is disabled");
      allHeld = false;
    } else if (auto holding = p_.caActivity != nullptr
                                  ? p_.caActivity->activeRateLimit(*account, domains, log)
                                  : std::nullopt) {
      // A rate limit the CA announced for these domains through this account: nothing is sent
      // to it (not even a registration).
      outcome = domain::CaOutcome::rate_limited;
      failure = makeError(
          domain::ErrorCode::resource_exhausted,
          "the CA's rate limit for " + holding->registered_domain + " holds until " +
              domain::formatTimestamp(*holding->retry_until) + " (" +
              (holding->project_id == job.project_id ? holding->detail
                                                     : std::string("refused for another project")) +
              ")",
          "rateLimited");
      if (!heldUntil || *holding->retry_until < *heldUntil) heldUntil = holding->retry_until;
    } else if (auto forbidden = caaRefusal(*cert, *account, provider, names, caaAnswers, log)) {
      // CAA forbids this CA: nothing is sent to it, and the next CA is asked at once.
      allHeld = false;
      outcome = domain::CaOutcome::caa_refused;
      failure = std::move(*forbidden);
    } else {
      allHeld = false;
      if (pendingSwitch) {
        reportFailover(job, *cert, pendingSwitch->first, *account, pendingSwitch->second, log);
        pendingSwitch.reset();
      }
      if (!started && renewal && cert->status == domain::CertificateStatus::renewal_pending) {
        if (auto s = certificateEvent(
                job, domain::CertificateEvent::renewal_started,
                domain::CertificateContext{p_.clock.now(), "", {}, {}, false, {}}, log);
            !s) {
          return s;
        }
      }
      started = true;
      ports::IssueReport report;
      auto result = orderFrom(job, *cert, *account, provider, names, stop, log, report);
      if (p_.caActivity != nullptr) {
        p_.caActivity->record(job, *account, domains, report, result.ok(), accountNotes, log);
      }
      if (result) {
        issued = std::move(*result);
      } else {
        if (result.error().reason == "stopped") return result.error();
        outcome = outcomeOf(result.error());
        failure = result.error();
      }
    }
    if (issued) {
      return stored(job, *cert, *account, provider, preference, policy, std::move(*issued), log);
    }
    lastError = failure;
    notes = accountNotes;  // the notes of the answer the attempt ends with
    if (i + 1 < order.size() && domain::failsOverAtOnce(outcome)) {
      if (!pendingSwitch) {
        pendingSwitch.emplace(*account,
                              std::string(domain::nameOf(outcome)) + ": " + failure->message);
      }
      continue;
    }
    if (outcome != domain::CaOutcome::refused) break;
    // A refusal counts; after failover_.after_failures in a row, the next attempt starts with
    // the next CA.
    const bool more = i + 1 < order.size();
    const domain::Id nextId = more ? order[i + 1] : domain::Id();
    bool moved = false;
    auto counted = changeCertificate(job, [&](domain::Certificate& c) {
      c.ca_failures += 1;
      moved = false;
      if (more && c.ca_failures >= failover_.after_failures) {
        c.failover_account_id = nextId == preference.front() ? domain::Id() : nextId;
        c.failover_at = p_.clock.now();
        c.ca_failures = 0;
        moved = true;
      }
    });
    if (!counted) {
      log(domain::LogLevel::warn, "the failure count was not stored: " + counted.error().message);
    }
    if (counted && moved) {
      if (auto next = p_.accounts.get(job.project_id, nextId)) {
        reportFailover(job, *cert, *account, *next,
                       std::to_string(failover_.after_failures) +
                           " attempts in a row failed, the last: " + failure->message,
                       log);
      }
    }
    break;
  }
  if (allHeld && heldUntil) {
    notes.deferred = true;
    notes.not_before = heldUntil;
  }
  if (lastError) return *lastError;
  return makeError(domain::ErrorCode::failed_precondition, "no ACME account could be used");
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
