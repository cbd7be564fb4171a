// The local account of a person whom an outside source vouches for — the directory (LDAP) or
// the identity provider (OIDC): created at the first login with the role the person's groups
// map to, that role applied at every later login, bound to the source's lasting identity of
// the person. Shared by DirectoryLogin and OidcLogin; not a service of its own.
#pragma once

#include <functional>
#include <string>

#include <certsteward/domain/user.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/user_repository.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

struct ExternalAccount {
  std::string username;  // lower-cased, valid
  domain::AuthSource source = domain::AuthSource::ldap;
  std::string subject;  // the source's lasting identity, kept in User::external_subject
  domain::OrgRole role = domain::OrgRole::viewer;
  std::string groups_label;  // "directory groups": how the audit entry names where roles come from
};

struct ExternalAccountPorts {
  ports::UserRepository& users;
  ports::IdGenerator& ids;
  const ports::Clock& clock;
};

// In one transaction under the name's guard and the user's own: the existing account — when
// `refuse(existing)` lets it be used — with the role (and, when it had none, the subject) saved
// and audited user.update; else a new account audited user.create ("<source> org_role=<role>").
domain::Result<domain::User> upsertExternalAccount(
    const ExternalAccountPorts& p, UnitOfWork& work, AuditService& audit, const RequestContext& ctx,
    const ExternalAccount& account,
    const std::function<domain::Status(const domain::User& existing)>& refuse);

}  // namespace certsteward::services
