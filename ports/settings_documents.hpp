// SettingsDocument: one org-wide settings document of a known type (the LDAP settings, the
// OpenID Connect settings, the CA providers), stored whole.
#pragma once

#include <optional>

#include <certsteward/domain/ca_provider.hpp>
#include <certsteward/domain/ldap_settings.hpp>
#include <certsteward/domain/oidc_settings.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

template <class T>
class SettingsDocument {
 public:
  virtual ~SettingsDocument() = default;

  /** @return the settings, nullopt when never saved. Thread-safe. */
  virtual domain::Result<std::optional<T>> get() const = 0;

  /** Replaces the settings; joins the caller's transaction. Thread-safe. */
  virtual domain::Status put(const T& settings) = 0;
};

using LdapSettingsRepository = SettingsDocument<domain::LdapSettings>;
using OidcSettingsRepository = SettingsDocument<domain::OidcSettings>;
using CaProviderRepository = SettingsDocument<domain::CaProviderList>;

}  // namespace certsteward::ports
