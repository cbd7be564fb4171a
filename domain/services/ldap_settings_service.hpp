// LdapSettingsService: read and replace the org's LDAP settings (org owner). A new service
// password is sealed before it is stored; without one the previous sealed password stays — but
// only while host, port, security and bind_dn stay too (the saved password is never sent to
// another server). A bind_dn needs a password. Every change is audited in the same transaction.
#pragma once

#include <optional>
#include <string>

#include "domain/ldap_settings.hpp"
#include "domain/services/access_control.hpp"
#include "domain/services/audit_service.hpp"
#include "domain/services/unit_of_work.hpp"
#include "ports/secret_box.hpp"
#include "ports/settings_documents.hpp"

namespace certsteward::domain {

// The settings as shown: never the password, only whether one is configured.
struct LdapSettingsView {
  LdapSettings settings;  // bind_password_sealed always empty
  bool bind_password_configured = false;
};

class LdapSettingsService {
 public:
  struct Ports {
    ports::LdapSettingsRepository& settings;
    ports::SecretBox& secrets;
  };

  LdapSettingsService(Ports ports, UnitOfWork& work, const AccessControl& access,
                      AuditService& audit)
      : p_(ports), work_(work), access_(access), audit_(audit) {}

  /** @return the stored settings, or the defaults when none were saved. */
  Result<LdapSettingsView> get(const Principal& who) const;

  /**
   * Replaces the settings with `draft` (its bind_password_sealed ignored); `bindPassword`, when
   * given, becomes the sealed service password. invalid_argument naming the field.
   */
  Result<LdapSettingsView> put(const Principal& who, const RequestContext& ctx, LdapSettings draft,
                               const std::optional<std::string>& bindPassword);

 private:
  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::domain
