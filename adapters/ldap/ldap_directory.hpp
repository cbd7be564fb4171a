// LdapDirectory: the Directory port over libldap. Each call opens its own connection with the
// settings it is given (logins are rare; nothing is shared between threads), with bounded
// connect and operation timeouts: find the user under base_dn with the service account and the
// user filter (the username escaped per RFC 4515), bind as the entry found with the given
// password, then read the groups that list the user. libldap's types stay in the .cpp.
#pragma once

#include <certsteward/ports/directory.hpp>

namespace certsteward::adapters::ldap {

class LdapDirectory : public ports::Directory {
 public:
  domain::Result<ports::DirectoryUser> authenticate(const ports::DirectoryAccess& access,
                                                    std::string_view username,
                                                    std::string_view password) override;
  domain::Result<ports::DirectoryUser> lookup(const ports::DirectoryAccess& access,
                                              std::string_view username) override;
  std::vector<ports::DirectoryCheck> test(const ports::DirectoryAccess& access) override;
};

}  // namespace certsteward::adapters::ldap
