// The "ldap" settings document.
#include "adapters/store/codec/settings_documents.hpp"

#include "adapters/store/codec/json_codec.hpp"

namespace certsteward::adapters::codec {

domain::Result<std::optional<domain::LdapSettings>> LdapSettingsDocument::get() const {
  auto stored = settings_.get("ldap");
  if (!stored) return stored.error();
  if (!*stored) return std::optional<domain::LdapSettings>();
  auto decoded = decode<domain::LdapSettings>((*stored)->value);
  if (!decoded) return decoded.error();
  return std::optional<domain::LdapSettings>(std::move(*decoded));
}

domain::Status LdapSettingsDocument::put(const domain::LdapSettings& settings) {
  return settings_.put(domain::Setting{"ldap", encode(settings), clock_.now()});
}

}  // namespace certsteward::adapters::codec
