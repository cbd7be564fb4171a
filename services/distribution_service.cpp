// Distributions of certificates.
#include <certsteward/services/distribution_service.hpp>

#include <certsteward/services/display_names.hpp>
#include <certsteward/services/distribution_runner.hpp>

namespace certsteward::services {

namespace {

// The distributions with the names lists show beside their ids.
template <class Range>
std::vector<DistributionView> named(const Range& distributions, DisplayNames& names) {
  std::vector<DistributionView> out;
  out.reserve(distributions.size());
  for (const auto& d : distributions) {
    DistributionView v{d, names.certificate(d.certificate_id), names.module(d.module_config_id)};
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace

domain::Result<std::vector<DistributionView>> DistributionService::forCertificate(
    const Principal& who, const domain::Id& projectId, const domain::Id& certificateId) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  if (auto cert = p_.certificates.get(projectId, certificateId); !cert) return cert.error();
  auto list = p_.distributions.listForCertificate(projectId, certificateId);
  if (!list) return list.error();
  DisplayNames names(p_.certificates, projectId, &p_.modules);
  return named(*list, names);
}

domain::Result<domain::Page<DistributionView>> DistributionService::list(
    const Principal& who, const domain::Id& projectId, const domain::PageRequest& page) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  auto found = p_.distributions.list(projectId, page);
  if (!found) return found.error();
  DisplayNames names(p_.certificates, projectId, &p_.modules);
  domain::Page<DistributionView> out;
  out.items = named(found->items, names);
  out.total = found->total;
  out.page = found->page;
  out.page_size = found->page_size;
  return out;
}

domain::Result<domain::Distribution> DistributionService::get(const Principal& who,
                                                              const domain::Id& projectId,
                                                              const domain::Id& certificateId,
                                                              const domain::Id& id) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  auto d = p_.distributions.get(projectId, id);
  if (!d) return d.error();
  if (d->certificate_id != certificateId) {
    return makeError(domain::ErrorCode::not_found, "distribution not found");
  }
  return d;
}

domain::Result<domain::Distribution> DistributionService::create(const Principal& who,
                                                                 const RequestContext& ctx,
                                                                 const domain::Id& projectId,
                                                                 const domain::Id& certificateId,
                                                                 const domain::Id& moduleConfigId) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  if (auto cert = p_.certificates.get(projectId, certificateId); !cert) return cert.error();
  if (auto s = access_.check(who, Action::write_certificates, projectId); !s) return s.error();
  const domain::Timestamp now = p_.clock.now();
  domain::Distribution d;
  d.id = p_.ids.next();
  d.project_id = projectId;
  d.certificate_id = certificateId;
  d.module_config_id = moduleConfigId;
  d.created_at = now;
  d.updated_at = now;
  const domain::Status done = work_.inProject(projectId, [&]() -> domain::Status {
    if (auto cert = p_.certificates.get(projectId, certificateId); !cert) return cert.error();
    if (auto module = p_.modules.get(projectId, moduleConfigId); !module) {
      if (module.error().code != domain::ErrorCode::not_found) return module.error();  // an outage
      return makeError(domain::ErrorCode::invalid_argument,
                       "module_config_id must name a module configuration of this project");
    }
    if (auto s = p_.distributions.create(d); !s) return s;
    return audit_.record(&who, ctx, "distribution.create", "distribution", d.id, projectId);
  });
  if (!done) return done.error();
  return d;
}

domain::Status DistributionService::remove(const Principal& who, const RequestContext& ctx,
                                           const domain::Id& projectId,
                                           const domain::Id& certificateId, const domain::Id& id) {
  auto d = get(who, projectId, certificateId, id);
  if (!d) return d.error();
  if (auto s = access_.check(who, Action::write_certificates, projectId); !s) return s;
  return work_.inProject(projectId, [&]() -> domain::Status {
    if (auto s = p_.distributions.remove(projectId, id); !s) return s;
    return audit_.record(&who, ctx, "distribution.delete", "distribution", id, projectId);
  });
}

domain::Status DistributionService::actionsAvailable() const {
  if (runner_ == nullptr || jobs_ == nullptr) {
    return makeError(domain::ErrorCode::unavailable,
                     "distribution actions are not available: no distribution modules are "
                     "configured");
  }
  return {};
}

domain::Result<std::vector<domain::TargetResult>> DistributionService::dryRun(
    const Principal& who, const RequestContext& ctx, const domain::Id& projectId,
    const domain::Id& certificateId, const domain::Id& id) {
  auto d = get(who, projectId, certificateId, id);
  if (!d) return d.error();
  if (auto s = access_.check(who, Action::write_certificates, projectId); !s) return s.error();
  if (auto s = actionsAvailable(); !s) return s.error();
  auto results = runner_->dryRun(*d);
  if (!results) return results.error();
  if (auto s = audit_.record(&who, ctx, "distribution.dry_run", "distribution", id, projectId);
      !s) {
    return s.error();
  }
  return results;
}

domain::Status DistributionService::noUnfinished(const domain::Id& projectId,
                                                 const domain::Id& certificateId,
                                                 domain::JobType type,
                                                 const domain::Id& distributionId,
                                                 const char* why) const {
  ports::JobFilter filter;
  filter.type = type;
  filter.certificate_id = certificateId;
  auto jobs = jobs_->list(projectId, filter, domain::PageRequest{1, 100});
  if (!jobs) return jobs.error();
  for (const auto& j : jobs->items) {
    if (isTerminal(j.status)) continue;
    const auto named = j.payload.find(kDistributionIdPayload);
    // An execute without a distribution named (after a renewal) covers all of them.
    if (named == j.payload.end() || named->second == distributionId) {
      return makeError(domain::ErrorCode::failed_precondition,
                       std::string(why) + " (job " + j.id + ")");
    }
  }
  return {};
}

domain::Result<domain::Job> DistributionService::enqueue(const Principal& who,
                                                         const RequestContext& ctx,
                                                         const domain::Distribution& d,
                                                         domain::Job job, const char* action) {
  std::optional<domain::Job> queued;
  const domain::Status done = work_.inProject(d.project_id, [&]() -> domain::Status {
    auto q = jobs_->enqueue(job);
    if (!q) return q.error();
    queued = std::move(q->job);
    return audit_.record(&who, ctx, action, "distribution", d.id, d.project_id, queued->id);
  });
  if (!done) return done.error();
  return std::move(*queued);
}

domain::Result<domain::Job> DistributionService::execute(const Principal& who,
                                                         const RequestContext& ctx,
                                                         const domain::Id& projectId,
                                                         const domain::Id& certificateId,
                                                         const domain::Id& id) {
  auto d = get(who, projectId, certificateId, id);
  if (!d) return d.error();
  if (auto s = access_.check(who, Action::write_certificates, projectId); !s) return s.error();
  if (auto s = actionsAvailable(); !s) return s.error();
  auto cert = p_.certificates.get(projectId, certificateId);
  if (!cert) return cert.error();
  if (cert->certificate_pem.empty()) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "the certificate has not been issued yet: there is nothing to deliver");
  }
  if (auto s = noUnfinished(projectId, certificateId, domain::JobType::distribution_rollback, id,
                            "a rollback of this distribution is queued or running: execute "
                            "after it finished");
      !s) {
    return s.error();
  }
  domain::Job job = newJob(p_.ids.next(), projectId, domain::JobType::distribution_execute,
                           p_.clock.now(), policy_);
  job.certificate_id = certificateId;
  job.payload[kDistributionIdPayload] = id;
  job.idempotency_key = "distribution-execute:" + id + ":" + cert->serial_number;
  return enqueue(who, ctx, *d, std::move(job), "distribution.execute");
}

domain::Result<domain::Job> DistributionService::rollback(const Principal& who,
                                                          const RequestContext& ctx,
                                                          const domain::Id& projectId,
                                                          const domain::Id& certificateId,
                                                          const domain::Id& id) {
  auto d = get(who, projectId, certificateId, id);
  if (!d) return d.error();
  if (auto s = access_.check(who, Action::write_certificates, projectId); !s) return s.error();
  if (auto s = actionsAvailable(); !s) return s.error();
  if (auto s = noUnfinished(projectId, certificateId, domain::JobType::distribution_execute, id,
                            "a delivery of this certificate is queued or running: roll back after "
                            "it finished");
      !s) {
    return s.error();
  }
  auto targets = runner_->rollbackTargets(*d);
  if (!targets) return targets.error();
  domain::Job job = newJob(p_.ids.next(), projectId, domain::JobType::distribution_rollback,
                           p_.clock.now(), policy_);
  job.certificate_id = certificateId;
  job.payload[kDistributionIdPayload] = id;
  job.payload[kRollbackTargetsPayload] = joinTargetNames(*targets);
  job.idempotency_key = "distribution-rollback:" + id + ":" + d->deployed_serial;
  return enqueue(who, ctx, *d, std::move(job), "distribution.rollback");
}

domain::Result<std::vector<domain::TargetResult>> DistributionService::health(
    const Principal& who, const RequestContext& ctx, const domain::Id& projectId,
    const domain::Id& moduleConfigId) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  auto config = p_.modules.get(projectId, moduleConfigId);
  if (!config) return config.error();
  if (auto s = access_.check(who, Action::write_certificates, projectId); !s) return s.error();
  if (auto s = actionsAvailable(); !s) return s.error();
  auto results = runner_->health(*config);
  if (!results) return results.error();
  if (auto s = audit_.record(&who, ctx, "module_config.health", "module_config", moduleConfigId,
                             projectId);
      !s) {
    return s.error();
  }
  return results;
}

}  // namespace certsteward::services
