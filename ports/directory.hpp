// Directory: an LDAP directory that authenticates users with auth_source "ldap". The settings
// come with every call (they are the org's, editable at any time); the adapter keeps no state.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/ldap_settings.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

struct DirectoryUser {
  // The entry's lasting identity: entryUUID (OpenLDAP, 389-ds), objectGUID in hex (Active
  // Directory), else its DN. A local account stays bound to it, so a name reused in the
  // directory for another person never opens the account.
  std::string id;
  std::string username;  // the entry's username_attribute; "" when the entry has none
  std::string distinguished_name;
  std::string email;
  std::vector<std::string> groups;  // DNs of the groups that list the user (mapped to org roles)
};

// How to reach the directory: the settings and the service account's password, opened.
struct DirectoryAccess {
  const domain::LdapSettings& settings;
  std::string_view bind_password;
};

// One step of a connection test: "connect", "tls", "bind" or "search".
struct DirectoryCheck {
  std::string step;
  bool ok = false;
  std::string message;
};

class Directory {
 public:
  virtual ~Directory() = default;

  /**
   * Finds the user with the service account, binds as the entry found with `password` and reads
   * its groups. @return the user; unauthenticated (one message for every wrong detail) for an
   * unknown user, a wrong or empty password or an ambiguous filter; unavailable with
   * DIRECTORY_UNREACHABLE when the directory cannot be reached, DIRECTORY_ERROR when it refuses
   * TLS or the service account. Thread-safe.
   */
  virtual domain::Result<DirectoryUser> authenticate(const DirectoryAccess& access,
                                                     std::string_view username,
                                                     std::string_view password) = 0;

  /**
   * Finds the user's entry and groups with the service account alone (no password): whether
   * the directory still lists a person who logged in earlier, and in which groups. not_found
   * when no single entry matches; unavailable as for authenticate. Thread-safe.
   */
  virtual domain::Result<DirectoryUser> lookup(const DirectoryAccess& access,
                                               std::string_view username) = 0;

  /**
   * Connects, starts TLS (when the settings ask for it), binds as the service account and
   * searches under base_dn, stopping at the first step that fails. @return the steps run, each
   * with ok and a message for a person. Thread-safe.
   */
  virtual std::vector<DirectoryCheck> test(const DirectoryAccess& access) = 0;
};

using DirectoryPtr = std::unique_ptr<Directory>;

}  // namespace certsteward::ports
