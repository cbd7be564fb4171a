// LdapSettingsService: the org's LDAP settings (org owner) with the service account's password
// sealed — kept while host, port, security and bind_dn stay; a bind_dn needs a password.
#pragma once

#include <certsteward/domain/ldap_settings.hpp>
#include <certsteward/services/sealed_settings_service.hpp>

namespace certsteward::services {

template <>
struct SealedSettingsTraits<domain::LdapSettings> {
  static constexpr const char* kAction = "settings.ldap.update";
  static constexpr const char* kId = "ldap";
  static constexpr const char* kSecret = "bind_password";
  static constexpr const char* kMoved =
      "bind_password must be given again when host, port, security or bind_dn change";
  static std::string& sealed(domain::LdapSettings& s) { return s.bind_password_sealed; }
  static const std::string& sealed(const domain::LdapSettings& s) { return s.bind_password_sealed; }
  static domain::Status check(const domain::LdapSettings& s) { return checkLdapSettings(s); }
  static bool sameTarget(const domain::LdapSettings& a, const domain::LdapSettings& b) {
    return a.host == b.host && a.port == b.port && a.security == b.security &&
           a.bind_dn == b.bind_dn;
  }
  static domain::Status checkSecret(const domain::LdapSettings& s) {
    if (!s.bind_dn.empty() && s.bind_password_sealed.empty()) {
      return domain::fieldError(
          "bind_password is required with bind_dn (without one the bind would be anonymous)");
    }
    return {};
  }
};

using LdapSettingsView = SealedSettingsView<domain::LdapSettings>;
using LdapSettingsService = SealedSettingsService<domain::LdapSettings>;

}  // namespace certsteward::services
