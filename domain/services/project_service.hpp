// ProjectService: projects and their members, under the role matrix, every change audited.
#pragma once

#include <optional>
#include <string>

#include "domain/services/access_control.hpp"
#include "domain/services/audit_service.hpp"
#include "ports/certificate_repository.hpp"
#include "ports/clock.hpp"
#include "ports/id_generator.hpp"
#include "ports/project_repository.hpp"
#include "ports/user_repository.hpp"

namespace certsteward::domain {

struct ProjectChanges {
  std::optional<std::string> name;
  std::optional<std::string> description;
};

class ProjectService {
 public:
  struct Ports {
    ports::ProjectRepository& projects;
    ports::MembershipRepository& memberships;
    ports::UserRepository& users;
    ports::CertificateRepository& certificates;
    ports::IdGenerator& ids;
    const ports::Clock& clock;
  };
  ProjectService(Ports ports, const AccessControl& access, AuditService& audit)
      : p_(ports), access_(access), audit_(audit) {}

  Result<Project> create(const Principal& who, const RequestContext& ctx, std::string name,
                         std::string description);
  // Org owners and admins see every project; others see the projects they are members of.
  Result<Page<Project>> list(const Principal& who, const PageRequest& page);
  Result<Project> get(const Principal& who, const Id& id);
  Result<Project> update(const Principal& who, const RequestContext& ctx, const Id& id,
                         const ProjectChanges& changes);
  // conflict/DEPENDENCY_CONFLICT while certificates remain in the project.
  Status remove(const Principal& who, const RequestContext& ctx, const Id& id);

  Result<Page<Membership>> members(const Principal& who, const Id& projectId,
                                   const PageRequest& page);
  Result<Membership> putMember(const Principal& who, const RequestContext& ctx, const Id& projectId,
                               const Id& userId, ProjectRole role);
  Status removeMember(const Principal& who, const RequestContext& ctx, const Id& projectId,
                      const Id& userId);

 private:
  Ports p_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::domain
