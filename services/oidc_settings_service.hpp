// OidcSettingsService: the org's OpenID Connect settings (org owner) with the client secret
// sealed — kept while issuer and client_id stay.
#pragma once

#include <certsteward/domain/oidc_settings.hpp>
#include <certsteward/services/sealed_settings_service.hpp>

namespace certsteward::services {

template <>
struct SealedSettingsTraits<domain::OidcSettings> {
  static constexpr const char* kAction = "settings.oidc.update";
  static constexpr const char* kId = "oidc";
  static constexpr const char* kSecret = "client_secret";
  static constexpr const char* kMoved =
      "client_secret must be given again when issuer or client_id change";
  static std::string& sealed(domain::OidcSettings& s) { return s.client_secret_sealed; }
  static const std::string& sealed(const domain::OidcSettings& s) { return s.client_secret_sealed; }
  static domain::Status check(const domain::OidcSettings& s) { return checkOidcSettings(s); }
  static bool sameTarget(const domain::OidcSettings& a, const domain::OidcSettings& b) {
    return a.issuer == b.issuer && a.client_id == b.client_id;
  }
  static domain::Status checkSecret(const domain::OidcSettings&) {
    return {};
  }  // a public client has none
};

using OidcSettingsView = SealedSettingsView<domain::OidcSettings>;
using OidcSettingsService = SealedSettingsService<domain::OidcSettings>;

}  // namespace certsteward::services
