// Directory: an LDAP directory that authenticates users with auth_source "ldap".
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "domain/result.hpp"

namespace certsteward::ports {

struct DirectoryUser {
  std::string username;
  std::string distinguished_name;
  std::string email;
  std::vector<std::string> groups;  // DNs of the groups that list the user (mapped to org roles)
};

class Directory {
 public:
  virtual ~Directory() = default;

  /**
   * Binds as the user. @return the user; unauthenticated for wrong credentials, unavailable
   * when the directory cannot be reached (ldap users cannot log in then). Thread-safe.
   */
  virtual domain::Result<DirectoryUser> authenticate(std::string_view username,
                                                     std::string_view password) = 0;

  /** Connects and binds with the service account. @return unavailable with the reason. */
  virtual domain::Status test() = 0;
};

using DirectoryPtr = std::unique_ptr<Directory>;

}  // namespace certsteward::ports
