// LdapSettingsRepository: the org's LDAP settings, one document.
#pragma once

#include <optional>

#include "domain/ldap_settings.hpp"
#include "domain/result.hpp"

namespace certsteward::ports {

class LdapSettingsRepository {
 public:
  virtual ~LdapSettingsRepository() = default;

  /** @return the settings, nullopt when never saved. Thread-safe. */
  virtual domain::Result<std::optional<domain::LdapSettings>> get() const = 0;

  /** Replaces the settings; joins the caller's transaction. Thread-safe. */
  virtual domain::Status put(const domain::LdapSettings& settings) = 0;
};

}  // namespace certsteward::ports
