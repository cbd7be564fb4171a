// OidcSettingsService: read and replace the org's OpenID Connect settings (org owner). A new
// client secret is sealed before it is stored; without one the previous sealed secret stays.
// Every change is audited in the same transaction.
#pragma once

#include <optional>
#include <string>

#include "domain/oidc_settings.hpp"
#include "domain/services/access_control.hpp"
#include "domain/services/audit_service.hpp"
#include "domain/services/unit_of_work.hpp"
#include "ports/secret_box.hpp"
#include "ports/settings_documents.hpp"

namespace certsteward::domain {

// The settings as shown: never the secret, only whether one is configured.
struct OidcSettingsView {
  OidcSettings settings;  // client_secret_sealed always empty
  bool client_secret_configured = false;
};

class OidcSettingsService {
 public:
  struct Ports {
    ports::OidcSettingsRepository& settings;
    ports::SecretBox& secrets;
  };

  OidcSettingsService(Ports ports, UnitOfWork& work, const AccessControl& access,
                      AuditService& audit)
      : p_(ports), work_(work), access_(access), audit_(audit) {}

  /** @return the stored settings, or the defaults (disabled) when none were saved. */
  Result<OidcSettingsView> get(const Principal& who) const;

  /**
   * Replaces the settings with `draft` (its client_secret_sealed ignored); `clientSecret`, when
   * given, becomes the sealed secret ("" removes it: a public client). invalid_argument naming
   * the field.
   */
  Result<OidcSettingsView> put(const Principal& who, const RequestContext& ctx, OidcSettings draft,
                               const std::optional<std::string>& clientSecret);

 private:
  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::domain
