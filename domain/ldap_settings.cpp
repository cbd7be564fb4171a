// LDAP settings rules.
#include "domain/ldap_settings.hpp"

namespace certsteward::domain {

Status checkLdapSettings(const LdapSettings& s) {
  const auto bad = [](const char* why) {
    return Status(makeError(ErrorCode::invalid_argument, why, kMalformed));
  };
  if (s.host.empty() || s.host.size() > 253) return bad("host must be 1 to 253 characters");
  if (s.base_dn.empty() || s.base_dn.size() > 1000) {
    return bad("base_dn must be 1 to 1000 characters");
  }
  if (s.port < 1 || s.port > 65535) return bad("port must be an integer from 1 to 65535");
  if (s.bind_dn.size() > 1000) return bad("bind_dn must be at most 1000 characters");
  if (s.user_filter.size() > 1000) return bad("user_filter must be at most 1000 characters");
  return {};
}

}  // namespace certsteward::domain
