// ProjectService: projects and their members, under the role matrix, every change audited.
#pragma once

#include <optional>
#include <string>

#include <certsteward/ports/acme_account_repository.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/credential_repository.hpp>
#include <certsteward/ports/dns_credential_repository.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/module_config_repository.hpp>
#include <certsteward/ports/notification_channel_repository.hpp>
#include <certsteward/ports/notification_rule_repository.hpp>
#include <certsteward/ports/project_repository.hpp>
#include <certsteward/ports/settings_documents.hpp>
#include <certsteward/ports/user_repository.hpp>
#include <certsteward/ports/zone_repository.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

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
    // The CA providers the issuance settings name (none: not checked).
    const ports::CaProviderRepository* providers = nullptr;
  };
  ProjectService(Ports ports, UnitOfWork& work, const AccessControl& access, AuditService& audit)
      : p_(ports), work_(work), access_(access), audit_(audit) {}

  domain::Result<domain::Project> create(const Principal& who, const RequestContext& ctx,
                                         std::string name, std::string description);
  // Org owners and admins see every project; others see the projects they are members of.
  domain::Result<domain::Page<domain::Project>> list(const Principal& who,
                                                     const domain::PageRequest& page);
  domain::Result<domain::Project> get(const Principal& who, const domain::Id& id);
  domain::Result<domain::Project> update(const Principal& who, const RequestContext& ctx,
                                         const domain::Id& id, const ProjectChanges& changes);
  // conflict/DEPENDENCY_CONFLICT while the project holds certificates or configuration
  // resources (listed in `references`). The project, its memberships and the audit entry go in
  // one transaction under the project's guard, so a create cannot slip in meanwhile; jobs,
  // job logs and events stay in the store as history but are unreachable (the project is 404).
  domain::Status remove(const Principal& who, const RequestContext& ctx, const domain::Id& id);

  // The project's issuance defaults and policy (any member).
  domain::Result<domain::ProjectIssuance> issuance(const Principal& who,
                                                   const domain::Id& projectId);
  // Replaces them (project admins). invalid_argument naming the field ("policy.max_lifetime_days",
  // "defaults.acme_account_ids") for a broken rule, default accounts that are not the project's,
  // a default profile the first default account's provider does not offer, or providers that do
  // not exist. Certificates already outside the new policy are stopped at their next renewal.
  // Audited project.issuance_update.
  domain::Result<domain::ProjectIssuance> setIssuance(const Principal& who,
                                                      const RequestContext& ctx,
                                                      const domain::Id& projectId,
                                                      const domain::ProjectIssuance& issuance);

  domain::Result<domain::Page<domain::Membership>> members(const Principal& who,
                                                           const domain::Id& projectId,
                                                           const domain::PageRequest& page);
  domain::Result<domain::Membership> putMember(const Principal& who, const RequestContext& ctx,
                                               const domain::Id& projectId,
                                               const domain::Id& userId, domain::ProjectRole role);
  domain::Status removeMember(const Principal& who, const RequestContext& ctx,
                              const domain::Id& projectId, const domain::Id& userId);

 private:
  // Up to 5 references per kind of what the project still holds; empty when nothing.
  domain::Result<std::vector<std::string>> contents(const domain::Id& projectId);

  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::services
