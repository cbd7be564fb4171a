// Accounts of directory and single sign-on users.
#include <certsteward/services/external_accounts.hpp>

#include <optional>
#include <vector>

namespace certsteward::services {

domain::Result<domain::User> upsertExternalAccount(
    const ExternalAccountPorts& p, UnitOfWork& work, AuditService& audit, const RequestContext& ctx,
    const ExternalAccount& account,
    const std::function<domain::Status(const domain::User& existing)>& refuse) {
  // The user's own guard as well, once known: a concurrent change of the user (a disable, a
  // role change) and this login never undo each other.
  std::vector<std::string> guards{"user:name:" + account.username};
  if (auto known = p.users.getByUsername(account.username)) guards.push_back(userGuard(known->id));
  std::optional<domain::User> user;
  const domain::Status done = work.run(
      [&]() -> domain::Status {
        auto existing = p.users.getByUsername(account.username);
        const domain::Timestamp now = p.clock.now();
        if (existing) {
          if (auto s = refuse(*existing); !s) return s;
          user = std::move(*existing);
          if (user->org_role == account.role && user->external_subject == account.subject) {
            return {};
          }
          std::string details = "bound to its " + std::string(nameOf(account.source)) + " identity";
          if (user->org_role != account.role) {
            details = "org_role " + std::string(nameOf(user->org_role)) + " -> " +
                      std::string(nameOf(account.role)) + " (" + account.groups_label + ")";
          }
          user->org_role = account.role;
          user->external_subject = account.subject;  // accounts of earlier versions get bound
          user->updated_at = now;
          if (auto s = p.users.update(*user); !s) return s;
          const Principal actor{*user, {}};
          return audit.record(&actor, ctx, "user.update", "user", user->id, std::nullopt, details);
        }
        if (existing.error().code != domain::ErrorCode::not_found) return existing.error();
        domain::User created;
        created.id = p.ids.next();
        created.username = account.username;
        created.org_role = account.role;
        created.auth_source = account.source;
        created.external_subject = account.subject;
        created.created_at = now;
        created.updated_at = now;
        if (auto s = p.users.create(created); !s) return s;
        user = created;
        const Principal actor{created, {}};
        return audit.record(
            &actor, ctx, "user.create", "user", created.id, std::nullopt,
            std::string(nameOf(account.source)) + " org_role=" + std::string(nameOf(account.role)));
      },
      guards);
  if (!done) return done.error();
  return std::move(*user);
}

}  // namespace certsteward::services
