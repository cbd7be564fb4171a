// The "ldap" and "oidc" settings documents.
#include <certsteward/adapters/store/codec/settings_documents.hpp>

#include <certsteward/adapters/store/codec/json_codec.hpp>

namespace certsteward::adapters::codec {
namespace {

const char* nameOf(const domain::LdapSettings*) {
  return "ldap";
}
const char* nameOf(const domain::OidcSettings*) {
  return "oidc";
}
const char* nameOf(const domain::CaProviderList*) {
  return "ca_providers";
}

}  // namespace

template <class T>
domain::Result<std::optional<T>> TypedSettingsDocument<T>::get() const {
  auto stored = settings_.get(nameOf(static_cast<const T*>(nullptr)));
  if (!stored) return stored.error();
  if (!*stored) return std::optional<T>();
  auto decoded = decode<T>((*stored)->value);
  if (!decoded) return decoded.error();
  return std::optional<T>(std::move(*decoded));
}

template <class T>
domain::Status TypedSettingsDocument<T>::put(const T& settings) {
  return settings_.put(
      domain::Setting{nameOf(static_cast<const T*>(nullptr)), encode(settings), clock_.now()});
}

template class TypedSettingsDocument<domain::LdapSettings>;
template class TypedSettingsDocument<domain::OidcSettings>;
template class TypedSettingsDocument<domain::CaProviderList>;

}  // namespace certsteward::adapters::codec
