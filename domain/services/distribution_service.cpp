// Distributions of certificates.
#include "domain/services/distribution_service.hpp"

namespace certsteward::domain {

Result<std::vector<Distribution>> DistributionService::forCertificate(const Principal& who,
                                                                      const Id& projectId,
                                                                      const Id& certificateId) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  if (auto cert = p_.certificates.get(projectId, certificateId); !cert) return cert.error();
  return p_.distributions.listForCertificate(projectId, certificateId);
}

Result<Page<Distribution>> DistributionService::list(const Principal& who, const Id& projectId,
                                                     const PageRequest& page) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  return p_.distributions.list(projectId, page);
}

Result<Distribution> DistributionService::get(const Principal& who, const Id& projectId,
                                              const Id& certificateId, const Id& id) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  auto d = p_.distributions.get(projectId, id);
  if (!d) return d.error();
  if (d->certificate_id != certificateId) {
    return makeError(ErrorCode::not_found, "distribution not found");
  }
  return d;
}

Result<Distribution> DistributionService::create(const Principal& who, const RequestContext& ctx,
                                                 const Id& projectId, const Id& certificateId,
                                                 const Id& moduleConfigId) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  if (auto cert = p_.certificates.get(projectId, certificateId); !cert) return cert.error();
  if (auto s = access_.check(who, Action::write_certificates, projectId); !s) return s.error();
  const Timestamp now = p_.clock.now();
  Distribution d;
  d.id = p_.ids.next();
  d.project_id = projectId;
  d.certificate_id = certificateId;
  d.module_config_id = moduleConfigId;
  d.created_at = now;
  d.updated_at = now;
  const Status done = work_.inProject(projectId, [&]() -> Status {
    if (auto cert = p_.certificates.get(projectId, certificateId); !cert) return cert.error();
    if (auto module = p_.modules.get(projectId, moduleConfigId); !module) {
      if (module.error().code != ErrorCode::not_found) return module.error();  // an outage
      return makeError(ErrorCode::invalid_argument,
                       "module_config_id must name a module configuration of this project");
    }
    if (auto s = p_.distributions.create(d); !s) return s;
    return audit_.record(&who, ctx, "distribution.create", "distribution", d.id, projectId);
  });
  if (!done) return done.error();
  return d;
}

Status DistributionService::remove(const Principal& who, const RequestContext& ctx,
                                   const Id& projectId, const Id& certificateId, const Id& id) {
  auto d = get(who, projectId, certificateId, id);
  if (!d) return d.error();
  if (auto s = access_.check(who, Action::write_certificates, projectId); !s) return s;
  return work_.inProject(projectId, [&]() -> Status {
    if (auto s = p_.distributions.remove(projectId, id); !s) return s;
    return audit_.record(&who, ctx, "distribution.delete", "distribution", id, projectId);
  });
}

}  // namespace certsteward::domain
