// The directory users log in against (org-wide, owner only): where it is, how to bind and how
// to find a user. The service account's password is kept sealed and never shown.
#pragma once

#include <string>

#include "domain/result.hpp"

namespace certsteward::domain {

struct LdapSettings {
  std::string host;
  int port = 389;
  std::string bind_dn;
  std::string base_dn;
  std::string user_filter = "(uid={username})";
  bool use_tls = true;
  std::string bind_password_sealed;  // empty when none is configured
};

// host (1-253 characters) and base_dn (1-1000) are required, port is 1-65535, bind_dn and
// user_filter at most 1000 characters: invalid_argument (reason kMalformed) naming the field.
Status checkLdapSettings(const LdapSettings& settings);

}  // namespace certsteward::domain
