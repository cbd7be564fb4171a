// OidcSettingsService: the org's OpenID Connect settings (org owner) with the client secret
// sealed — kept while issuer and client_id stay.
#pragma once

#include "domain/oidc_settings.hpp"
#include "domain/services/sealed_settings_service.hpp"

namespace certsteward::domain {

template <>
struct SealedSettingsTraits<OidcSettings> {
  static constexpr const char* kAction = "settings.oidc.update";
  static constexpr const char* kId = "oidc";
  static constexpr const char* kSecret = "client_secret";
  static constexpr const char* kMoved =
      "client_secret must be given again when issuer or client_id change";
  static std::string& sealed(OidcSettings& s) { return s.client_secret_sealed; }
  static const std::string& sealed(const OidcSettings& s) { return s.client_secret_sealed; }
  static Status check(const OidcSettings& s) { return checkOidcSettings(s); }
  static bool sameTarget(const OidcSettings& a, const OidcSettings& b) {
    return a.issuer == b.issuer && a.client_id == b.client_id;
  }
  static Status checkSecret(const OidcSettings&) { return {}; }  // a public client has none
};

using OidcSettingsView = SealedSettingsView<OidcSettings>;
using OidcSettingsService = SealedSettingsService<OidcSettings>;

}  // namespace certsteward::domain
