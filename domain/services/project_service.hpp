// ProjectService: projects and their members, under the role matrix, every change audited.
#pragma once

#include <optional>
#include <string>

#include "domain/services/access_control.hpp"
#include "domain/services/audit_service.hpp"
#include "domain/services/unit_of_work.hpp"
#include "ports/acme_account_repository.hpp"
#include "ports/certificate_repository.hpp"
#include "ports/clock.hpp"
#include "ports/credential_repository.hpp"
#include "ports/dns_credential_repository.hpp"
#include "ports/id_generator.hpp"
#include "ports/module_config_repository.hpp"
#include "ports/notification_channel_repository.hpp"
#include "ports/notification_rule_repository.hpp"
#include "ports/project_repository.hpp"
#include "ports/user_repository.hpp"
#include "ports/zone_repository.hpp"

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
    // What a project holds: its deletion is refused while any of it remains.
    ports::AcmeAccountRepository& acmeAccounts;
    ports::DnsCredentialRepository& dnsCredentials;
    ports::ZoneRepository& zones;
    ports::CredentialRepository& credentials;
    ports::ModuleConfigRepository& moduleConfigs;
    ports::NotificationChannelRepository& notificationChannels;
    ports::NotificationRuleRepository& notificationRules;
  };
  ProjectService(Ports ports, UnitOfWork& work, const AccessControl& access, AuditService& audit)
      : p_(ports), work_(work), access_(access), audit_(audit) {}

  Result<Project> create(const Principal& who, const RequestContext& ctx, std::string name,
                         std::string description);
  // Org owners and admins see every project; others see the projects they are members of.
  Result<Page<Project>> list(const Principal& who, const PageRequest& page);
  Result<Project> get(const Principal& who, const Id& id);
  Result<Project> update(const Principal& who, const RequestContext& ctx, const Id& id,
                         const ProjectChanges& changes);
  // conflict/DEPENDENCY_CONFLICT while the project holds certificates or configuration
  // resources (listed in `references`). The project, its memberships and the audit entry go in
  // one transaction under the project's guard, so a create cannot slip in meanwhile; jobs,
  // job logs and events stay in the store as history but are unreachable (the project is 404).
  Status remove(const Principal& who, const RequestContext& ctx, const Id& id);

  Result<Page<Membership>> members(const Principal& who, const Id& projectId,
                                   const PageRequest& page);
  Result<Membership> putMember(const Principal& who, const RequestContext& ctx, const Id& projectId,
                               const Id& userId, ProjectRole role);
  Status removeMember(const Principal& who, const RequestContext& ctx, const Id& projectId,
                      const Id& userId);

 private:
  // Up to 5 references per kind of what the project still holds; empty when nothing.
  Result<std::vector<std::string>> contents(const Id& projectId);

  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::domain
