// Typed settings over the SettingsRepository's JSON documents (any store): the LDAP settings as
// the document "ldap", in the codec's format. Thread-safe.
#pragma once

#include "ports/clock.hpp"
#include "ports/ldap_settings_repository.hpp"
#include "ports/settings_repository.hpp"

namespace certsteward::adapters::codec {

class LdapSettingsDocument : public ports::LdapSettingsRepository {
 public:
  LdapSettingsDocument(ports::SettingsRepository& settings, const ports::Clock& clock)
      : settings_(settings), clock_(clock) {}

  domain::Result<std::optional<domain::LdapSettings>> get() const override;
  domain::Status put(const domain::LdapSettings& settings) override;

 private:
  ports::SettingsRepository& settings_;
  const ports::Clock& clock_;
};

}  // namespace certsteward::adapters::codec
