// Directory logins: authenticate, map groups to the org role, create or update the local user.
#include <certsteward/services/directory_login.hpp>

#include <certsteward/domain/text.hpp>
#include <certsteward/services/external_accounts.hpp>

namespace certsteward::services {
namespace {

domain::Error refused() {
  return makeError(domain::ErrorCode::unauthenticated, "invalid username or password",
                   "INVALID_CREDENTIALS");
}

domain::Error noRole() {
  return makeError(domain::ErrorCode::permission_denied,
                   "your directory account is in no group that grants a role here; ask an owner "
                   "to map one of your groups in the LDAP settings",
                   "NO_ROLE");
}

}  // namespace

domain::Result<std::optional<std::pair<domain::LdapSettings, std::string>>> DirectoryLogin::load()
    const {
  using Loaded = std::optional<std::pair<domain::LdapSettings, std::string>>;
  auto stored = p_.settings.get();
  if (!stored) return stored.error();
  if (!*stored) return Loaded{};
  std::string password;
  if (!(*stored)->bind_password_sealed.empty()) {
    auto opened = p_.secrets.open((*stored)->bind_password_sealed);
    if (!opened) {
      return makeError(domain::ErrorCode::unavailable,
                       "the LDAP service account's password cannot be decrypted (was the "
                       "server's secret key changed?); save it again in the LDAP settings",
                       "DIRECTORY_ERROR");
    }
    password = std::move(*opened);
  }
  return Loaded{std::pair{std::move(**stored), std::move(password)}};
}

domain::Result<std::optional<domain::User>> DirectoryLogin::login(const std::string& username,
                                                                  const std::string& password) {
  auto loaded = load();
  if (!loaded) return loaded.error();
  if (!*loaded || !(*loaded)->first.enabled) return std::optional<domain::User>{};
  const auto& [settings, bindPassword] = **loaded;
  auto found = p_.directory.authenticate({settings, bindPassword}, username, password);
  if (!found) {
    // The details (addresses, what the directory said) are for the owner's LDAP test, not for
    // whoever is trying names at the login form.
    if (found.error().reason == "DIRECTORY_UNREACHABLE") {
      return makeError(domain::ErrorCode::unavailable,
                       "the directory is unreachable; directory users cannot log in until it is "
                       "back",
                       "DIRECTORY_UNREACHABLE");
    }
    if (found.error().code == domain::ErrorCode::unavailable) {
      return makeError(domain::ErrorCode::unavailable,
                       "the directory refused the connection; directory users cannot log in now "
                       "(an owner can see why with the LDAP test)",
                       "DIRECTORY_ERROR");
    }
    return found.error();
  }
  const auto role = mapDirectoryRole(settings, found->groups);
  if (!role) return noRole();
  const std::string name = domain::asciiLower(found->username);
  if (!domain::isValidUsername(name)) {
    return makeError(domain::ErrorCode::permission_denied,
                     "your directory entry has no " + settings.username_attribute +
                         " usable as a username here (1 to 64 characters of a-z, 0-9, '.', '_', "
                         "'@', '-'); ask an owner to check username_attribute",
                     "USERNAME_UNUSABLE");
  }
  const std::string subject = "ldap " + found->id;
  auto user = upsertExternalAccount(
      {p_.users, p_.ids, p_.clock}, work_, audit_, {"", ""},
      {name, domain::AuthSource::ldap, subject, *role, "directory groups"},
      [&](const domain::User& existing) -> domain::Status {
        // Never take over a local account or another entry's account; never let a disabled
        // user in (and say none of it: the one refusal).
        const bool otherEntry =
            !existing.external_subject.empty() && existing.external_subject != subject;
        if (existing.auth_source != domain::AuthSource::ldap || existing.disabled || otherEntry) {
          return refused();
        }
        return {};
      });
  if (!user) return user.error();
  return std::optional<domain::User>(std::move(*user));
}

domain::Result<domain::User> DirectoryLogin::recheck(const domain::User& user) {
  const auto gone = [](const char* why) {
    return makeError(domain::ErrorCode::unauthenticated, why, "TOKEN_INVALID");
  };
  auto loaded = load();
  if (!loaded) return user;  // the settings cannot be read now: as an outage
  if (!*loaded || !(*loaded)->first.enabled) return gone("directory login is disabled");
  const auto& [settings, bindPassword] = **loaded;
  auto found = p_.directory.lookup({settings, bindPassword}, user.username);
  if (!found) {
    if (found.error().code == domain::ErrorCode::not_found) {
      return gone("the directory no longer lists this user; log in again");
    }
    return user;  // unreachable: the session lives on until its tokens expire
  }
  if (!user.external_subject.empty() && user.external_subject != "ldap " + found->id) {
    return gone("the directory lists another person under this name; log in again");
  }
  const auto role = mapDirectoryRole(settings, found->groups);
  if (!role) return gone("no directory group grants this user a role any more");
  if (*role == user.org_role) return user;
  domain::User changed;
  const domain::Status done = work_.run(
      [&]() -> domain::Status {
        auto current = p_.users.get(user.id);
        if (!current) return current.error();
        const std::string details = "org_role " + std::string(nameOf(current->org_role)) + " -> " +
                                    std::string(nameOf(*role)) + " (directory groups)";
        current->org_role = *role;
        current->updated_at = p_.clock.now();
        if (auto s = p_.users.update(*current); !s) return s;
        changed = *current;
        const Principal actor{*current, {}};
        return audit_.record(&actor, {"", ""}, "user.update", "user", current->id, std::nullopt,
                             details);
      },
      {userGuard(user.id)});
  if (!done) return done.error();
  return changed;
}

domain::Result<std::vector<ports::DirectoryCheck>> DirectoryLogin::test(
    const Principal& who, const RequestContext& ctx,
    const std::optional<DirectoryCredentials>& credentials) {
  if (auto s = access_.check(who, Action::manage_settings); !s) return s.error();
  // A test with a login checks someone's password: it leaves its trace.
  if (auto s = audit_.record(&who, ctx, "settings.ldap.test", "settings", "ldap", std::nullopt,
                             credentials ? "login=" + credentials->username.substr(0, 64) : "");
      !s) {
    return s.error();
  }
  auto loaded = load();
  if (!loaded) return loaded.error();
  if (!*loaded) {
    return makeError(domain::ErrorCode::failed_precondition,
                     "no LDAP settings are saved; save them with PUT /settings/ldap first");
  }
  const auto& [settings, bindPassword] = **loaded;
  auto steps = p_.directory.test({settings, bindPassword});
  const bool connected = !steps.empty() && steps.back().ok;
  if (!credentials || !connected) return steps;
  auto found = p_.directory.authenticate({settings, bindPassword}, credentials->username,
                                         credentials->password);
  if (!found) {
    steps.push_back({"login", false, found.error().message});
    return steps;
  }
  const auto role = mapDirectoryRole(settings, found->groups);
  std::string message = "found " + found->distinguished_name + " in " +
                        std::to_string(found->groups.size()) + " group(s); ";
  if (!role) {
    steps.push_back({"login", false,
                     message + "no group maps to a role and deny_without_group is set, so this "
                               "user would be refused"});
    return steps;
  }
  steps.push_back({"login", true,
                   message + "would log in as " + domain::asciiLower(found->username) +
                       " with org role " + std::string(nameOf(*role))});
  return steps;
}

}  // namespace certsteward::services
