// DirectoryLogin: logging in directory (LDAP) users with the org's LDAP settings. The directory
// checks the password and names the user's groups; the groups map to the org role (the highest
// mapped role wins, else the default role, else the user is refused). A user is created with
// auth_source ldap at the first login and takes the mapped role at every login; a locally
// disabled directory user stays refused, and a local account of the same name is never taken
// over. Also the owner's connection test of the settings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/directory.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/secret_box.hpp>
#include <certsteward/ports/settings_documents.hpp>
#include <certsteward/ports/user_repository.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

struct DirectoryCredentials {
  std::string username;
  std::string password;
};

class DirectoryLogin {
 public:
  struct Ports {
    ports::LdapSettingsRepository& settings;
    ports::Directory& directory;
    ports::SecretBox& secrets;
    ports::UserRepository& users;
    ports::IdGenerator& ids;
    const ports::Clock& clock;
  };

  DirectoryLogin(Ports ports, UnitOfWork& work, const AccessControl& access, AuditService& audit)
      : p_(ports), work_(work), access_(access), audit_(audit) {}

  /**
   * Logs `username` in through the directory. @return the local user (created or updated), or
   * nullopt when no directory is configured or it is disabled. unauthenticated
   * "invalid username or password" for every refusal of the directory, a disabled user or a
   * local account of that name or an account bound to another directory entry;
   * permission_denied NO_ROLE when no group maps to a role and deny_without_group is set
   * (USERNAME_UNUSABLE when the entry's username attribute is missing or unusable); unavailable
   * DIRECTORY_UNREACHABLE when the directory cannot be reached, DIRECTORY_ERROR when it refuses
   * the connection (in general words: the owner's test tells why).
   */
  domain::Result<std::optional<domain::User>> login(const std::string& username,
                                                    const std::string& password);

  /**
   * At the refresh of a directory user's session: whether the directory still lists them — the
   * same entry, in groups that grant a role — with the service account alone. @return the user,
   * with the role the groups map to now (a change is saved and audited); the user unchanged
   * when the directory cannot be reached (sessions outlive an outage). unauthenticated when the
   * entry is gone or another, no group grants a role under deny_without_group, or directory
   * login is disabled.
   */
  domain::Result<domain::User> recheck(const domain::User& user);

  /**
   * Owner only: the connection test of the saved settings (connect, tls, bind, search) and, with
   * `credentials`, a "login" step that checks them and names the role they would get, without
   * creating or changing a user. Audited settings.ldap.test (with the username tried).
   * failed_precondition when no settings were saved.
   */
  domain::Result<std::vector<ports::DirectoryCheck>> test(
      const Principal& who, const RequestContext& ctx,
      const std::optional<DirectoryCredentials>& credentials);

 private:
  // The settings and the opened service password; nullopt when never saved.
  domain::Result<std::optional<std::pair<domain::LdapSettings, std::string>>> load() const;

  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::services
