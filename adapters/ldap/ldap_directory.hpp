// LdapDirectory: the Directory port over libldap. Each call opens its own connection (logins
// are rare; nothing is shared between threads), with a bounded network timeout: find the user
// under `base_dn` with the service account and the user filter (the username escaped per
// RFC 4515), bind as the entry found with the given password, then read the groups that list
// the user. libldap's types stay in the .cpp.
#pragma once

#include <chrono>
#include <string>

#include "ports/directory.hpp"

namespace certsteward::adapters::ldap {

enum class LdapSecurity { none, starttls, ldaps };

struct LdapDirectoryOptions {
  std::string host;
  int port = 389;
  LdapSecurity security = LdapSecurity::starttls;
  std::string ca_bundle;  // PEM file of the CAs to trust; empty: the system's
  std::string bind_dn;    // the service account; empty: anonymous search
  std::string bind_password;
  std::string base_dn;
  std::string user_filter = "(uid={username})";
  std::string email_attribute = "mail";
  std::string group_base_dn;  // empty: groups are not read
  std::string group_filter = "(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames))";
  std::string member_attribute = "member";  // holds the user's DN
  std::chrono::milliseconds timeout{5000};
};

class LdapDirectory : public ports::Directory {
 public:
  explicit LdapDirectory(LdapDirectoryOptions options);

  // unauthenticated (one message whatever was wrong) for an unknown user, a wrong or empty
  // password, or a filter that finds several entries; unavailable when the directory cannot be
  // reached, refuses TLS or the service account.
  domain::Result<ports::DirectoryUser> authenticate(std::string_view username,
                                                    std::string_view password) override;
  domain::Status test() override;

 private:
  LdapDirectoryOptions options_;
};

}  // namespace certsteward::adapters::ldap
