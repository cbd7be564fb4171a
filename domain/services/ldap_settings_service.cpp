// LDAP settings.
#include "domain/services/ldap_settings_service.hpp"

namespace certsteward::domain {
namespace {

LdapSettingsView viewOf(LdapSettings settings) {
  LdapSettingsView view;
  view.bind_password_configured = !settings.bind_password_sealed.empty();
  settings.bind_password_sealed.clear();
  view.settings = std::move(settings);
  return view;
}

}  // namespace

Result<LdapSettingsView> LdapSettingsService::get(const Principal& who) const {
  if (auto s = access_.check(who, Action::manage_settings); !s) return s.error();
  auto stored = p_.settings.get();
  if (!stored) return stored.error();
  return viewOf(stored->value_or(LdapSettings{}));
}

Result<LdapSettingsView> LdapSettingsService::put(const Principal& who, const RequestContext& ctx,
                                                  LdapSettings draft,
                                                  const std::optional<std::string>& bindPassword) {
  if (auto s = access_.check(who, Action::manage_settings); !s) return s.error();
  draft.bind_password_sealed.clear();
  if (auto s = checkLdapSettings(draft); !s) return s.error();
  if (bindPassword && !bindPassword->empty()) {  // "" removes the password
    if (bindPassword->size() > 1000) {
      return makeError(ErrorCode::invalid_argument, "bind_password must be at most 1000 characters",
                       kMalformed);
    }
    auto sealed = p_.secrets.seal(*bindPassword);
    if (!sealed) return sealed.error();
    draft.bind_password_sealed = std::move(*sealed);
  }
  const Status done = work_.run([&]() -> Status {
    if (!bindPassword) {  // keep the password saved before, read in the same transaction
      auto previous = p_.settings.get();
      if (!previous) return previous.error();
      if (*previous && !(*previous)->bind_password_sealed.empty()) {
        const auto& before = **previous;
        // The saved password goes only where it went before: pointing the settings at another
        // server or account needs it typed again.
        if (before.host != draft.host || before.port != draft.port ||
            before.security != draft.security || before.bind_dn != draft.bind_dn) {
          return fieldError(
              "bind_password must be given again when host, port, security or bind_dn change");
        }
        draft.bind_password_sealed = before.bind_password_sealed;
      }
    }
    if (!draft.bind_dn.empty() && draft.bind_password_sealed.empty()) {
      return fieldError(
          "bind_password is required with bind_dn (without one the bind would be anonymous)");
    }
    if (auto s = p_.settings.put(draft); !s) return s;
    return audit_.record(&who, ctx, "settings.ldap.update", "settings", "ldap");
  });
  if (!done) return done.error();
  return viewOf(std::move(draft));
}

}  // namespace certsteward::domain
