// LdapSettingsService: the org's LDAP settings (org owner) with the service account's password
// sealed — kept while host, port, security and bind_dn stay; a bind_dn needs a password.
#pragma once

#include "domain/ldap_settings.hpp"
#include "domain/services/sealed_settings_service.hpp"

namespace certsteward::domain {

template <>
struct SealedSettingsTraits<LdapSettings> {
  static constexpr const char* kAction = "settings.ldap.update";
  static constexpr const char* kId = "ldap";
  static constexpr const char* kSecret = "bind_password";
  static constexpr const char* kMoved =
      "bind_password must be given again when host, port, security or bind_dn change";
  static std::string& sealed(LdapSettings& s) { return s.bind_password_sealed; }
  static const std::string& sealed(const LdapSettings& s) { return s.bind_password_sealed; }
  static Status check(const LdapSettings& s) { return checkLdapSettings(s); }
  static bool sameTarget(const LdapSettings& a, const LdapSettings& b) {
    return a.host == b.host && a.port == b.port && a.security == b.security &&
           a.bind_dn == b.bind_dn;
  }
  static Status checkSecret(const LdapSettings& s) {
    if (!s.bind_dn.empty() && s.bind_password_sealed.empty()) {
      return fieldError(
          "bind_password is required with bind_dn (without one the bind would be anonymous)");
    }
    return {};
  }
};

using LdapSettingsView = SealedSettingsView<LdapSettings>;
using LdapSettingsService = SealedSettingsService<LdapSettings>;

}  // namespace certsteward::domain
