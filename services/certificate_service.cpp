// Certificate use cases.
#include <certsteward/services/certificate_service.hpp>

#include <algorithm>

#include <certsteward/domain/distribution_settings.hpp>
#include <certsteward/domain/license.hpp>
#include <certsteward/services/issuance_settings.hpp>

namespace certsteward::services {

domain::Result<QueuedCertificate> CertificateService::create(const Principal& who,
                                                             const RequestContext& ctx,
                                                             const domain::Id& projectId,
                                                             CertificateRequest request) {
  if (auto s = access_.check(who, Action::write_certificates, projectId); !s) return s.error();
  const domain::Timestamp now = p_.clock.now();
  domain::Certificate cert;
  cert.id = p_.ids.next();
  cert.project_id = projectId;
  cert.common_name = std::move(request.common_name);
  cert.sans = std::move(request.sans);
  if (std::find(cert.sans.begin(), cert.sans.end(), cert.common_name) == cert.sans.end()) {
    cert.sans.insert(cert.sans.begin(), cert.common_name);
  }
  cert.key_type = request.key_type;
  if (request.renewal_threshold_days && request.renew_at_fraction) {
    return domain::fieldError(
        "renew_at_fraction and renewal_threshold_days cannot both be given: choose one");
  }
  if (request.renew_at_fraction && *request.renew_at_fraction == 0) {
    return domain::fieldError(
        "renew_at_fraction must be between 0.01 and 0.99 (the share of the lifetime left when "
        "renewal starts); leave it out to renew by renewal_threshold_days");
  }
  if (request.renewal_threshold_days) cert.renewal_threshold_days = *request.renewal_threshold_days;
  cert.renew_at_fraction = request.renew_at_fraction.value_or(
      request.renewal_threshold_days ? 0.0 : domain::kDefaultRenewAtFraction);
  cert.auto_renew = request.auto_renew;
  cert.acme_account_id = request.acme_account_id;
  cert.acme_account_ids = std::move(request.acme_account_ids);
  if (!cert.acme_account_ids.empty()) {
    if (cert.acme_account_id && *cert.acme_account_id != cert.acme_account_ids.front()) {
      return domain::fieldError(
          "acme_account_id must be the first of acme_account_ids when both are given");
    }
    cert.acme_account_id = cert.acme_account_ids.front();
  }
  cert.profile = std::move(request.profile);
  cert.preferred_chain = std::move(request.preferred_chain);
  cert.challenge = request.challenge;
  cert.http01_module_config_id = std::move(request.http01_module_config_id);
  cert.status = domain::CertificateStatus::issuing;
  cert.created_at = now;
  cert.updated_at = now;
  if (auto s = validateNewCertificate(cert); !s) return s.error();
  // What the request leaves out comes from the project's defaults: the issuer preference, and
  // the profile and chain.
  auto issuance = projectIssuance(p_.projects, projectId);
  if (!issuance) return issuance.error();
  const auto& defaults = issuance->defaults;
  const bool accountsFromDefaults = !cert.acme_account_id && !defaults.acme_account_ids.empty();
  if (accountsFromDefaults) {
    cert.acme_account_ids = defaults.acme_account_ids;
    cert.acme_account_id = cert.acme_account_ids.front();
  }
  const bool profileFromDefaults = cert.profile.empty() && !defaults.profile.empty();
  if (profileFromDefaults) cert.profile = defaults.profile;
  if (cert.preferred_chain.empty()) cert.preferred_chain = defaults.preferred_chain;
  // Names no zone covers directly are served only through a CNAME delegation to one that does:
  // looked up here, before the transaction (it asks the DNS).
  const auto notServed = [](const std::string& name, const std::string& why) {
    domain::Error e = makeError(domain::ErrorCode::invalid_argument,
                                "no configured challenge method can serve " + name + ": " + why,
                                "NAME_NOT_SERVED");
    e.references = {"sans"};
    return e;
  };
  std::map<std::string, std::string> delegations;  // name -> where its record is written
  const ChallengeRouter router({p_.zones, p_.lookup});
  if (auto s = checkAccounts(cert, profileFromDefaults, accountsFromDefaults); !s) return s.error();
  if (auto s = checkPolicy(cert, *issuance); !s) return s.error();
  const bool http01 = cert.challenge == domain::ChallengeType::http_01;
  if (http01) {
    if (auto s = checkHttp01(projectId, cert.http01_module_config_id); !s) return s.error();
  }
  bool capChecked = false;
  for (const auto& name : http01 ? std::vector<std::string>() : cert.sans) {
    auto direct = router.directRoute(projectId, name);
    if (!direct) return direct.error();
    if (*direct) continue;
    if (!capChecked) {  // the cap is told before any DNS is asked (and again when inserting)
      auto license = p_.license.get();
      if (!license) return license.error();
      auto existing = p_.certificates.countAll();
      if (!existing) return existing.error();
      if (auto s = checkIssuanceAllowed(*license, now, *existing); !s) return s.error();
      capChecked = true;
    }
    auto route = router.routeName(projectId, name);
    if (!route) {
      // Resolvers that do not answer leave a name no zone covers unserved too (422, in words
      // that say the delegation could not be checked).
      if (route.error().code == domain::ErrorCode::not_found ||
          route.error().code == domain::ErrorCode::internal) {
        return route.error();
      }
      return notServed(name, route.error().message);
    }
    delegations[name] = route->record_name;
  }
  domain::Job job =
      newJob(p_.ids.next(), projectId, domain::JobType::issue_certificate, now, jobPolicy_);
  job.certificate_id = cert.id;
  std::optional<domain::Job> queuedJob;
  const domain::Status done = work_.inProject(
      projectId,
      [&]() -> domain::Status {
        // Again inside the write: the accounts, providers or policy may have changed meanwhile.
        if (auto s = checkAccounts(cert, false, accountsFromDefaults); !s) return s;
        auto current = projectIssuance(p_.projects, projectId);
        if (!current) return current.error();
        if (auto s = checkPolicy(cert, *current); !s) return s;
        // Again inside the write: its webroot configuration may have changed meanwhile.
        if (http01) {
          if (auto s = checkHttp01(projectId, cert.http01_module_config_id); !s) return s;
        }
        // The licence caps issuance (never renewal). Counted over all projects, inside the
        // transaction that inserts, under the licence guard.
        auto license = p_.license.get();
        if (!license) return license.error();
        auto existing = p_.certificates.countAll();
        if (!existing) return existing.error();
        if (auto s = checkIssuanceAllowed(*license, now, *existing); !s) return s;
        // Every name must be one a challenge can be answered for (DNS-01 in a zone of the
        // project, directly or through a delegation found above); refused here rather than
        // failing later inside the job. A name its zone covers directly is not looked up: a
        // delegation of it is followed, or found broken, at issuance.
        for (const auto& name : http01 ? std::vector<std::string>() : cert.sans) {
          const auto delegated = delegations.find(name);
          const std::string at = delegated == delegations.end()
                                     ? ChallengeRouter::challengeName(name)
                                     : delegated->second;
          auto zone = p_.zones.findForName(projectId, at);
          if (!zone) return zone.error();
          if (!*zone) {
            return notServed(name, "no zone of this project covers it (add its zone first)");
          }
        }
        if (auto s = p_.certificates.create(cert); !s) return s;
        auto queued = p_.jobs.enqueue(job);
        if (!queued) return queued.error();
        queuedJob = std::move(queued->job);
        return audit_.record(&who, ctx, "certificate.create", "certificate", cert.id, projectId,
                             cert.common_name);
      },
      {kLicenseGuard});
  if (!done) return done.error();
  cert.version = 1;
  return QueuedCertificate{std::move(cert), std::move(*queuedJob)};
}

domain::Status CertificateService::checkAccounts(domain::Certificate& cert,
                                                 bool profileFromDefaults,
                                                 bool accountsFromDefaults) const {
  if (!cert.acme_account_id) {
    if (!cert.profile.empty()) {
      if (profileFromDefaults) {
        cert.profile.clear();
        return {};
      }
      return domain::fieldError(
          "profile needs acme_account_id or acme_account_ids: a profile belongs to one CA");
    }
    return {};
  }
  const auto ids = preferenceOf(cert);
  std::optional<domain::AcmeAccount> first;
  for (const auto& id : ids) {
    auto account = p_.acmeAccounts.get(cert.project_id, id);
    if (!account) {
      if (account.error().code != domain::ErrorCode::not_found) return account.error();
      if (accountsFromDefaults) {
        return makeError(domain::ErrorCode::invalid_argument,
                         "the project's default issuer preference names ACME account " + id +
                             ", which no longer exists: change the issuance settings, or name "
                             "acme_account_ids");
      }
      return makeError(
          domain::ErrorCode::invalid_argument,
          std::string(cert.acme_account_ids.empty() ? "acme_account_id" : "acme_account_ids") +
              " must name ACME accounts of this project");
    }
    if (!first) first = *account;
  }
  if (cert.profile.empty() || p_.providers == nullptr) return {};
  auto list = p_.providers->get();
  if (!list) return list.error();
  const domain::CaProviderList none;
  const auto* provider = domain::findCaProvider(*list ? **list : none, first->ca_provider_id);
  domain::Status offered =
      provider == nullptr
          ? domain::Status(domain::fieldError(
                "profile cannot be checked: the first ACME account has no CA provider"))
          : domain::checkProfile(*provider, cert.profile);
  if (!offered && profileFromDefaults) {
    cert.profile.clear();  // the project's default profile goes only to CAs that offer it
    return {};
  }
  return offered;
}

domain::Status CertificateService::checkPolicy(const domain::Certificate& cert,
                                               const domain::ProjectIssuance& issuance) const {
  auto preference = orderingAccounts(p_.acmeAccounts, cert, issuance.defaults);  // as the job does
  if (!preference) return preference.error();
  auto providers = providerIdsOf(p_.acmeAccounts, p_.providers, cert.project_id, *preference);
  if (!providers) return providers.error();
  const auto violations = domain::policyViolations(cert, *providers, issuance.policy);
  if (!violations.empty()) return domain::policyError(violations);
  return {};
}

domain::Status CertificateService::checkHttp01(const domain::Id& projectId,
                                               const domain::Id& moduleConfigId) const {
  if (moduleConfigId.empty()) {
    if (p_.http01Served) return {};
    return domain::fieldError(
        "challenge http-01 needs acme.http01_listen on this server, or "
        "http01_module_config_id naming a file or ssh module configuration with a webroot");
  }
  if (p_.moduleConfigs == nullptr) {
    return domain::fieldError("http01_module_config_id is not supported by this server");
  }
  auto config = p_.moduleConfigs->get(projectId, moduleConfigId);
  if (!config) {
    if (config.error().code != domain::ErrorCode::not_found) return config.error();
    return domain::fieldError(
        "http01_module_config_id must name a module configuration of this project");
  }
  if (config->module != "file" && config->module != "ssh") {
    return domain::fieldError(
        "http01_module_config_id must name a file or ssh module "
        "configuration (it is " +
        config->module + ")");
  }
  if (config->targets.empty()) {
    return domain::fieldError("http01_module_config_id names a configuration with no targets");
  }
  for (const auto& t : config->targets) {
    if (domain::settingOf(domain::effectiveSettings(*config, t), "webroot").empty()) {
      return domain::fieldError("http01_module_config_id names a configuration whose target " +
                                t.name.substr(0, 64) + " has no webroot setting");
    }
  }
  return {};
}

domain::Result<domain::Page<domain::Certificate>> CertificateService::list(
    const Principal& who, const domain::Id& projectId, const ports::CertificateFilter& filter,
    const domain::PageRequest& page) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  return p_.certificates.list(projectId, filter, page);
}

domain::Result<CertificateSummary> CertificateService::summary(const Principal& who,
                                                               const domain::Id& projectId) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  const auto count = [&](const ports::CertificateFilter& filter) {
    return p_.certificates.countMatching(projectId, filter);
  };
  const auto expiringBefore = [&](domain::Timestamp at) {
    ports::CertificateFilter filter;
    filter.expires_before = at;
    return count(filter);
  };
  CertificateSummary out;
  for (const auto status :
       {domain::CertificateStatus::issuing, domain::CertificateStatus::active,
        domain::CertificateStatus::renewal_pending, domain::CertificateStatus::renewal_in_progress,
        domain::CertificateStatus::renewal_failed}) {
    ports::CertificateFilter filter;
    filter.statuses = {status};
    auto n = count(filter);
    if (!n) return n.error();
    out.by_status[status] = *n;
    out.total += *n;
  }
  const domain::Timestamp now = p_.clock.now();
  auto expired = expiringBefore(now);
  if (!expired) return expired.error();
  out.expired = *expired;
  for (const int days : {7, 14, 30}) {
    auto n = expiringBefore(now + std::chrono::days{days});
    if (!n) return n.error();
    out.expiring_within.emplace_back(days, *n);
  }
  std::int64_t before = out.expired;
  for (int week = 1; week <= CertificateSummary::kWeeks; ++week) {
    auto n = expiringBefore(now + std::chrono::days{7 * week});
    if (!n) return n.error();
    // Separate reads: a renewal between two of them must not make a week negative.
    out.expiring_by_week.push_back(std::max<std::int64_t>(0, *n - before));
    before = std::max(before, *n);
  }
  return out;
}

domain::Result<std::int64_t> CertificateService::generation(const Principal& who,
                                                            const domain::Id& projectId) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  return p_.certificates.generation(projectId);
}

domain::Result<domain::Certificate> CertificateService::get(const Principal& who,
                                                            const domain::Id& projectId,
                                                            const domain::Id& id) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  return p_.certificates.get(projectId, id);
}

domain::Result<std::vector<ChallengePlanEntry>> CertificateService::challengePlan(
    const Principal& who, const domain::Id& projectId, const domain::Id& id) {
  auto cert = get(who, projectId, id);
  if (!cert) return cert.error();
  const ChallengeRouter router({p_.zones, p_.lookup});
  std::vector<ChallengePlanEntry> plan;
  if (cert->challenge == domain::ChallengeType::http_01) {
    std::string via = "this server (acme.http01_listen)", problem;
    if (!cert->http01_module_config_id.empty()) {
      via = "module configuration " + cert->http01_module_config_id;
      auto config = p_.moduleConfigs != nullptr
                        ? p_.moduleConfigs->get(projectId, cert->http01_module_config_id)
                        : domain::Result<domain::ModuleConfig>(
                              makeError(domain::ErrorCode::not_found, "none"));
      if (config) {
        via = "module configuration " + config->name;
      } else if (config.error().code == domain::ErrorCode::not_found) {
        problem = "its module configuration " + cert->http01_module_config_id +
                  " no longer exists: the next issuance fails";
      } else {
        return config.error();
      }
    } else if (!p_.http01Served) {
      problem = "this server does not answer HTTP-01 itself (acme.http01_listen is not set)";
    }
    for (const auto& name : cert->sans) {
      plan.push_back({name, domain::ChallengeType::http_01, std::nullopt, via, problem});
    }
    return plan;
  }
  for (const auto& name : cert->sans) {
    ChallengePlanEntry entry;
    entry.name = name;
    auto route = router.routeName(projectId, name);
    if (route) {
      entry.route = std::move(*route);
    } else if (route.error().code == domain::ErrorCode::internal) {
      return route.error();
    } else {
      entry.problem = route.error().message;
    }
    plan.push_back(std::move(entry));
  }
  return plan;
}

domain::Status checkExportPassword(const std::string& password) {
  if (password.size() < 8 || password.size() > 1024) {
    return makeError(domain::ErrorCode::invalid_argument,
                     "password (8 to 1024 characters) is required to export the private key",
                     domain::kMalformed);
  }
  // PKCS#12 reads it as a C string.
  for (const char ch : password) {
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) {
      return makeError(domain::ErrorCode::invalid_argument,
                       "password must not contain control characters", domain::kMalformed);
    }
  }
  return {};
}

domain::Result<CertificateMaterial> CertificateService::material(const Principal& who,
                                                                 const RequestContext& ctx,
                                                                 const domain::Id& projectId,
                                                                 const domain::Id& id,
                                                                 const MaterialRequest& request) {
  const bool withPrivateKey = request.key != KeyExport::none;
  if (withPrivateKey) {
    if (auto s = checkExportPassword(request.password); !s) return s.error();
  }
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  auto cert = p_.certificates.get(projectId, id);
  if (!cert) return cert.error();
  if (withPrivateKey) {
    if (auto s = access_.check(who, Action::export_private_key, projectId); !s) return s.error();
  }
  if (cert->certificate_pem.empty()) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "the certificate has not been issued yet (status " +
                         std::string(nameOf(cert->status)) + ")");
  }
  CertificateMaterial out{cert->common_name, cert->certificate_pem, cert->chain_pem, {}, {}};
  if (!withPrivateKey) return out;
  if (p_.bundles == nullptr) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "this build cannot export private keys");
  }
  if (cert->private_key_sealed.empty()) {
    return makeError(domain::ErrorCode::failed_precondition, "no private key is stored for it");
  }
  auto key = p_.secrets.open(cert->private_key_sealed);
  if (!key) {  // the store's fault, not the caller's: never a 4xx, never the detail
    return makeError(domain::ErrorCode::internal, "the stored private key cannot be decrypted");
  }
  auto packed = request.key == KeyExport::pkcs12
                    ? p_.bundles->pkcs12(*key, cert->certificate_pem, cert->chain_pem,
                                         request.password, cert->common_name)
                    : p_.bundles->encryptedPrivateKeyPem(*key, request.password);
  if (!packed) return packed.error();
  // No key leaves without its audit entry.
  if (auto s = audit_.record(&who, ctx, "certificate.private_key_export", "certificate", id,
                             projectId, cert->common_name);
      !s) {
    return s.error();
  }
  (request.key == KeyExport::pkcs12 ? out.pkcs12 : out.encrypted_private_key_pem) =
      std::move(*packed);
  return out;
}

domain::Status CertificateService::remove(const Principal& who, const RequestContext& ctx,
                                          const domain::Id& projectId, const domain::Id& id) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s;  // 404 first
  auto cert = p_.certificates.get(projectId, id);
  if (!cert) return cert.error();
  if (auto s = access_.check(who, Action::delete_certificates, projectId); !s) return s;
  return work_.inProject(projectId, [&]() -> domain::Status {
    auto distributions = p_.distributions.listForCertificate(projectId, id);
    if (!distributions) return distributions.error();
    if (!distributions->empty()) {
      domain::Error e = makeError(
          domain::ErrorCode::conflict,
          "the certificate still has " + std::to_string(distributions->size()) + " distribution(s)",
          "DEPENDENCY_CONFLICT");
      for (const auto& d : *distributions)
        e.references.push_back("distribution " + d.id);
      return e;
    }
    if (auto s = p_.certificates.remove(projectId, id); !s) return s;
    if (auto s = audit_.record(&who, ctx, "certificate.delete", "certificate", id, projectId,
                               cert->common_name);
        !s) {
      return s;
    }
    return cancelJobsOf(who, ctx, projectId, id);
  });
}

domain::Status CertificateService::cancelJobsOf(const Principal& who, const RequestContext& ctx,
                                                const domain::Id& projectId,
                                                const domain::Id& certificateId) {
  // Its issuance and renewal work ends with it: waiting or failed jobs are cancelled now, a
  // running one is asked to stop at its next step (the heartbeat sees the request).
  const domain::JobContext now{p_.clock.now(), "", "", jobPolicy_};
  for (const auto status :
       {domain::JobStatus::pending, domain::JobStatus::failed, domain::JobStatus::active}) {
    for (const auto type :
         {domain::JobType::issue_certificate, domain::JobType::renew_certificate}) {
      ports::JobFilter filter;
      filter.status = status;
      filter.type = type;
      filter.certificate_id = certificateId;
      // Each pass cancels what it finds (pending and failed jobs leave the filter); bounded.
      for (int pass = 0; pass < 100; ++pass) {
        auto found = p_.jobs.list(projectId, filter, domain::PageRequest{1, 100});
        if (!found) return found.error();
        std::size_t changed = 0;
        for (const auto& job : found->items) {
          if (job.cancel_requested) continue;
          auto applied = p_.jobs.apply(job.id, domain::JobEvent::cancel, now);
          if (!applied) {
            // It ended or changed meanwhile (completed, claimed by another worker): nothing to
            // cancel now; a running one stops when it finds its certificate gone.
            const auto code = applied.error().code;
            if (code == domain::ErrorCode::failed_precondition ||
                code == domain::ErrorCode::conflict || code == domain::ErrorCode::not_found) {
              continue;
            }
            return applied.error();
          }
          ++changed;
          if (auto s = audit_.record(&who, ctx, "job.cancel", "job", job.id, projectId,
                                     "the certificate " + certificateId + " was deleted");
              !s) {
            return s;
          }
        }
        if (changed == 0 || status == domain::JobStatus::active) break;
      }
    }
  }
  return {};
}

domain::Result<domain::Certificate> CertificateService::update(const Principal& who,
                                                               const RequestContext& ctx,
                                                               const domain::Id& projectId,
                                                               const domain::Id& id,
                                                               const CertificateChanges& changes) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  if (auto s = access_.check(who, Action::write_certificates, projectId); !s) return s.error();
  if (changes.renewal_threshold_days && changes.renew_at_fraction &&
      *changes.renew_at_fraction != 0) {
    return domain::fieldError(
        "renew_at_fraction and renewal_threshold_days cannot both be given: choose one");
  }
  for (int attempt = 0; attempt < 5; ++attempt) {  // re-read on a concurrent update
    auto cert = p_.certificates.get(projectId, id);
    if (!cert) return cert.error();
    const domain::Timestamp now = p_.clock.now();
    if (changes.auto_renew) cert->auto_renew = *changes.auto_renew;
    if (changes.renewal_threshold_days) {
      cert->renewal_threshold_days = *changes.renewal_threshold_days;
      cert->renew_at_fraction = 0;
    }
    if (changes.renew_at_fraction) cert->renew_at_fraction = *changes.renew_at_fraction;
    if (changes.acme_account_ids) {
      cert->acme_account_ids = *changes.acme_account_ids;
      cert->acme_account_id = cert->acme_account_ids.empty()
                                  ? std::nullopt
                                  : std::optional<domain::Id>(cert->acme_account_ids.front());
      // A new preference starts from its first choice.
      cert->failover_account_id.clear();
      cert->failover_at.reset();
      cert->ca_failures = 0;
    }
    if (changes.profile) cert->profile = *changes.profile;
    if (changes.preferred_chain) cert->preferred_chain = *changes.preferred_chain;
    if (auto s = validateNewCertificate(*cert); !s) return s.error();
    const bool timing = changes.renewal_threshold_days || changes.renew_at_fraction;
    if (timing && cert->expires_at && cert->status == domain::CertificateStatus::active) {
      cert->next_renewal_at =
          domain::renewalTimeFor(*cert, cert->issued_at.value_or(now), *cert->expires_at);
    }
    cert->updated_at = now;
    std::optional<domain::Certificate> out;
    const domain::Status done = work_.inProject(projectId, [&]() -> domain::Status {
      if (auto s = checkAccounts(*cert, false, false); !s) return s;
      // Only the issuer preference can take a certificate outside the policy here (its names and
      // key are fixed): other changes (auto_renew, timing) stay possible for one already outside.
      if (changes.acme_account_ids) {
        auto issuance = projectIssuance(p_.projects, projectId);
        if (!issuance) return issuance.error();
        if (auto s = checkPolicy(*cert, *issuance); !s) return s;
      }
      auto stored = p_.certificates.update(*cert);
      if (!stored) return stored.error();
      out = std::move(*stored);
      return audit_.record(&who, ctx, "certificate.update", "certificate", id, projectId);
    });
    if (!done) {
      if (done.error().code == domain::ErrorCode::conflict) continue;
      return done.error();
    }
    return std::move(*out);
  }
  return makeError(domain::ErrorCode::unavailable, "the certificate is changing; try again");
}

domain::Result<QueuedCertificate> CertificateService::renew(const Principal& who,
                                                            const RequestContext& ctx,
                                                            const domain::Id& projectId,
                                                            const domain::Id& id) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  if (auto s = access_.check(who, Action::write_certificates, projectId); !s) return s.error();
  for (int attempt = 0; attempt < 5; ++attempt) {  // re-read on a concurrent update
    auto cert = p_.certificates.get(projectId, id);
    if (!cert) return cert.error();
    const domain::Timestamp now = p_.clock.now();
    const std::string key = renewalIdempotencyKey(*cert);
    if (auto applied =
            applyCertificateEvent(*cert, domain::CertificateEvent::manual_renew,
                                  domain::CertificateContext{now, "", {}, {}, false, {}});
        !applied) {
      return makeError(
          domain::ErrorCode::failed_precondition,
          "the certificate cannot be renewed now: it is " + std::string(nameOf(cert->status)));
    }
    domain::Job job =
        newJob(p_.ids.next(), projectId, domain::JobType::renew_certificate, now, jobPolicy_);
    job.certificate_id = id;
    job.idempotency_key = key;
    std::optional<QueuedCertificate> out;
    // The status change, the renewal job and the audit entry together: never a certificate
    // waiting for a renewal job that does not exist.
    const domain::Status done = work_.inProject(projectId, [&]() -> domain::Status {
      auto stored = p_.certificates.update(*cert);
      if (!stored) return stored.error();
      auto queued = p_.jobs.enqueue(job);
      if (!queued) return queued.error();
      out = QueuedCertificate{std::move(*stored), std::move(queued->job)};
      return audit_.record(&who, ctx, "certificate.renew", "certificate", id, projectId);
    });
    if (!done) {
      if (done.error().code == domain::ErrorCode::conflict) continue;
      return done.error();
    }
    return std::move(*out);
  }
  return makeError(domain::ErrorCode::unavailable, "the certificate is changing; try again");
}

}  // namespace certsteward::services
