// Job use cases.
#include <certsteward/services/job_service.hpp>

#include <certsteward/domain/certificate.hpp>
#include <certsteward/services/display_names.hpp>

namespace certsteward::services {

domain::Result<domain::Page<JobView>> JobService::list(const Principal& who,
                                                       const domain::Id& projectId,
                                                       const ports::JobFilter& filter,
                                                       const domain::PageRequest& page) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  auto found = p_.jobs.list(projectId, filter, page);
  if (!found) return found.error();
  DisplayNames names(p_.certificates, projectId);
  domain::Page<JobView> out;
  out.items.reserve(found->items.size());
  for (auto& job : found->items) {
    std::string name = names.certificate(job.certificate_id.value_or(""));
    out.items.push_back(JobView{std::move(job), std::move(name)});
  }
  out.total = found->total;
  out.page = found->page;
  out.page_size = found->page_size;
  return out;
}

domain::Result<JobView> JobService::get(const Principal& who, const domain::Id& projectId,
                                        const domain::Id& id) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  auto job = p_.jobs.get(projectId, id);
  if (!job) return job.error();
  std::string name =
      DisplayNames(p_.certificates, projectId).certificate(job->certificate_id.value_or(""));
  return JobView{std::move(*job), std::move(name)};
}

domain::Result<domain::Page<domain::JobLogEntry>> JobService::logs(
    const Principal& who, const domain::Id& projectId, const domain::Id& id,
    const domain::PageRequest& page) {
  // The job must be the project's; its certificate's name (get()) is not needed here, and a
  // running job's log is read every second or two.
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  if (auto job = p_.jobs.get(projectId, id); !job) return job.error();
  return p_.logs.list(id, page);
}

domain::Result<domain::Page<domain::Event>> JobService::eventsInOrder(
    const Principal& who, const domain::Id& projectId, const domain::PageRequest& page) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  return p_.events.listInOrder(projectId, page);
}

domain::Result<domain::Page<domain::Event>> JobService::events(const Principal& who,
                                                               const domain::Id& projectId,
                                                               const domain::PageRequest& page) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  return p_.events.list(projectId, page);
}

domain::Result<domain::Job> JobService::transition(const Principal& who, const RequestContext& ctx,
                                                   const domain::Id& projectId,
                                                   const domain::Id& id, domain::JobEvent event,
                                                   const char* action) {
  std::optional<domain::Job> out;
  const domain::Status done = work_.inProject(projectId, [&]() -> domain::Status {
    auto job = p_.jobs.get(projectId, id);  // tenancy: another project's job is not found
    if (!job) return job.error();
    auto update = p_.jobs.apply(id, event, domain::JobContext{p_.clock.now(), "", "", {}});
    if (!update) return update.error();
    // A dead renewal retried: its certificate waits for it again (renewal_failed ->
    // renewal_pending, as a manual renewal), or the renewed certificate could not be applied.
    if (event == domain::JobEvent::retry && job->type == domain::JobType::renew_certificate &&
        job->certificate_id) {
      auto cert = p_.certificates.get(projectId, *job->certificate_id);
      if (!cert) return cert.error();
      if (cert->status == domain::CertificateStatus::renewal_failed) {
        if (auto applied = applyCertificateEvent(
                *cert, domain::CertificateEvent::manual_renew,
                domain::CertificateContext{p_.clock.now(), "", {}, {}, false, {}});
            !applied) {
          return applied.error();
        }
        if (auto stored = p_.certificates.update(*cert); !stored) return stored.error();
      }
    }
    out = std::move(update->job);
    return audit_.record(&who, ctx, action, "job", id, projectId);
  });
  if (!done) return done.error();
  return std::move(*out);
}

domain::Result<domain::Job> JobService::retry(const Principal& who, const RequestContext& ctx,
                                              const domain::Id& projectId, const domain::Id& id) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  if (auto s = access_.check(who, Action::retry_job, projectId); !s) return s.error();
  auto count =
      p_.rateLimits.hit("job-retry:" + who.user.id, std::chrono::minutes{1}, p_.clock.now());
  if (!count) return count.error();
  if (*count > 20) {
    return makeError(domain::ErrorCode::resource_exhausted, "job retry is limited to 20 per minute",
                     "RATE_LIMITED");
  }
  return transition(who, ctx, projectId, id, domain::JobEvent::retry, "job.retry");
}

domain::Result<domain::Job> JobService::cancel(const Principal& who, const RequestContext& ctx,
                                               const domain::Id& projectId, const domain::Id& id) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  if (auto s = access_.check(who, Action::cancel_job, projectId); !s) return s.error();
  return transition(who, ctx, projectId, id, domain::JobEvent::cancel, "job.cancel");
}

domain::Result<domain::Job> JobService::dismiss(const Principal& who, const RequestContext& ctx,
                                                const domain::Id& projectId, const domain::Id& id) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  if (auto s = access_.check(who, Action::cancel_job, projectId); !s) return s.error();
  return transition(who, ctx, projectId, id, domain::JobEvent::dismiss, "job.dismiss");
}

}  // namespace certsteward::services
