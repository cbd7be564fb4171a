// Typed settings over the SettingsRepository's JSON documents (any store): the LDAP settings as
// the document "ldap" and the OpenID Connect settings as "oidc", the CA providers as "ca_providers", in the codec's format.
// Thread-safe.
#pragma once

#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/settings_documents.hpp>
#include <certsteward/ports/settings_repository.hpp>

namespace certsteward::adapters::codec {

template <class T>
class TypedSettingsDocument : public ports::SettingsDocument<T> {
 public:
  TypedSettingsDocument(ports::SettingsRepository& settings, const ports::Clock& clock)
      : settings_(settings), clock_(clock) {}

  domain::Result<std::optional<T>> get() const override;
  domain::Status put(const T& settings) override;

 private:
  ports::SettingsRepository& settings_;
  const ports::Clock& clock_;
};

using LdapSettingsDocument = TypedSettingsDocument<domain::LdapSettings>;
using OidcSettingsDocument = TypedSettingsDocument<domain::OidcSettings>;
using CaProvidersDocument = TypedSettingsDocument<domain::CaProviderList>;

}  // namespace certsteward::adapters::codec
