// The local account of a person whom an outside source vouches for — the directory (LDAP) or
// the identity provider (OIDC): created at the first login with the role the person's groups
// map to, that role applied at every later login, bound to the source's lasting identity of
// the person. Shared by DirectoryLogin and OidcLogin; not a service of its own.
#pragma once

#include <functional>
#include <string>

#include "domain/services/audit_service.hpp"
#include "domain/services/unit_of_work.hpp"
#include "domain/user.hpp"
#include "ports/clock.hpp"
#include "ports/id_generator.hpp"
#include "ports/user_repository.hpp"

namespace certsteward::domain {

struct ExternalAccount {
  std::string username;  // lower-cased, valid
  AuthSource source = AuthSource::ldap;
  std::string subject;  // the source's lasting identity, kept in User::external_subject
  OrgRole role = OrgRole::viewer;
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
Result<User> upsertExternalAccount(const ExternalAccountPorts& p, UnitOfWork& work,
                                   AuditService& audit, const RequestContext& ctx,
                                   const ExternalAccount& account,
                                   const std::function<Status(const User& existing)>& refuse);

}  // namespace certsteward::domain
