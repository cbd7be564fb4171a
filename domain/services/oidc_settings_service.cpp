// OpenID Connect settings.
#include "domain/services/oidc_settings_service.hpp"

namespace certsteward::domain {
namespace {

OidcSettingsView viewOf(OidcSettings settings) {
  OidcSettingsView view;
  view.client_secret_configured = !settings.client_secret_sealed.empty();
  settings.client_secret_sealed.clear();
  view.settings = std::move(settings);
  return view;
}

}  // namespace

Result<OidcSettingsView> OidcSettingsService::get(const Principal& who) const {
  if (auto s = access_.check(who, Action::manage_settings); !s) return s.error();
  auto stored = p_.settings.get();
  if (!stored) return stored.error();
  return viewOf(stored->value_or(OidcSettings{}));
}

Result<OidcSettingsView> OidcSettingsService::put(const Principal& who, const RequestContext& ctx,
                                                  OidcSettings draft,
                                                  const std::optional<std::string>& clientSecret) {
  if (auto s = access_.check(who, Action::manage_settings); !s) return s.error();
  draft.client_secret_sealed.clear();
  if (auto s = checkOidcSettings(draft); !s) return s.error();
  if (clientSecret && !clientSecret->empty()) {
    if (clientSecret->size() > 1000) {
      return fieldError("client_secret must be at most 1000 characters");
    }
    auto sealed = p_.secrets.seal(*clientSecret);
    if (!sealed) return sealed.error();
    draft.client_secret_sealed = std::move(*sealed);
  }
  const Status done = work_.run([&]() -> Status {
    if (!clientSecret) {  // keep the secret saved before, read in the same transaction
      auto previous = p_.settings.get();
      if (!previous) return previous.error();
      if (*previous && !(*previous)->client_secret_sealed.empty()) {
        // The saved secret goes only to the provider it was given for.
        if ((*previous)->issuer != draft.issuer || (*previous)->client_id != draft.client_id) {
          return fieldError("client_secret must be given again when issuer or client_id change");
        }
        draft.client_secret_sealed = (*previous)->client_secret_sealed;
      }
    }
    if (auto s = p_.settings.put(draft); !s) return s;
    return audit_.record(&who, ctx, "settings.oidc.update", "settings", "oidc");
  });
  if (!done) return done.error();
  return viewOf(std::move(draft));
}

}  // namespace certsteward::domain
