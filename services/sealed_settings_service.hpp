// SealedSettingsService<T>: read and replace one org-wide settings document that holds a
// secret (the LDAP service password, the OIDC client secret), org owner only. The secret is
// sealed before it is stored and never shown; a change without it keeps the sealed one — but
// only while the settings still point where they pointed (SealedSettingsTraits<T>::sameTarget:
// a saved secret is never sent to another server). "" removes the secret. Every change is
// audited in the same transaction. LdapSettingsService and OidcSettingsService are its two uses.
#pragma once

#include <optional>
#include <string>

#include <certsteward/ports/secret_box.hpp>
#include <certsteward/ports/settings_documents.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

// What a settings type tells the service (specialised next to each use):
//   kAction, kId: the audit entry; kSecret: the secret's field name in the API;
//   sealed(s): its sealed field; check(s): the rules of the settings without the secret;
//   sameTarget(before, after): whether the saved secret may stay; kMoved: why it may not;
//   checkSecret(s): a rule on the secret's presence (e.g. a bind DN needs a password).
template <class T>
struct SealedSettingsTraits;

// The settings as shown: never the secret, only whether one is configured.
template <class T>
struct SealedSettingsView {
  T settings;  // the sealed field always empty
  bool secret_configured = false;
};

template <class T>
class SealedSettingsService {
 public:
  using Traits = SealedSettingsTraits<T>;
  using View = SealedSettingsView<T>;

  struct Ports {
    ports::SettingsDocument<T>& settings;
    ports::SecretBox& secrets;
  };

  SealedSettingsService(Ports ports, UnitOfWork& work, const AccessControl& access,
                        AuditService& audit)
      : p_(ports), work_(work), access_(access), audit_(audit) {}

  /**
   * Whether `who` may read and change the settings (and test the connection they describe):
   * permission_denied unless owner. The API asks before it reads a request's body, so a caller
   * who may not learns nothing of how the body would have been judged.
   */
  domain::Status authorizeChange(const Principal& who) const {
    return access_.check(who, Action::manage_settings);
  }

  /** @return the stored settings, or the defaults when none were saved. */
  domain::Result<View> get(const Principal& who) const {
    if (auto s = authorizeChange(who); !s) return s.error();
    auto stored = p_.settings.get();
    if (!stored) return stored.error();
    return viewOf(stored->value_or(T{}));
  }

  /**
   * Replaces the settings with `draft` (its sealed field ignored); `secret`, when given, becomes
   * the sealed secret ("" removes it). invalid_argument naming the field.
   */
  domain::Result<View> put(const Principal& who, const RequestContext& ctx, T draft,
                           const std::optional<std::string>& secret) {
    if (auto s = authorizeChange(who); !s) return s.error();
    Traits::sealed(draft).clear();
    if (auto s = Traits::check(draft); !s) return s.error();
    if (secret && !secret->empty()) {
      if (secret->size() > 1000) {
        return domain::fieldError(std::string(Traits::kSecret) +
                                  " must be at most 1000 characters");
      }
      auto sealed = p_.secrets.seal(*secret);
      if (!sealed) return sealed.error();
      Traits::sealed(draft) = std::move(*sealed);
    }
    const domain::Status done = work_.run([&]() -> domain::Status {
      if (!secret) {  // keep the secret saved before, read in the same transaction
        auto previous = p_.settings.get();
        if (!previous) return previous.error();
        if (*previous && !Traits::sealed(**previous).empty()) {
          if (!Traits::sameTarget(**previous, draft)) return domain::fieldError(Traits::kMoved);
          Traits::sealed(draft) = Traits::sealed(**previous);
        }
      }
      if (auto s = Traits::checkSecret(draft); !s) return s;
      if (auto s = p_.settings.put(draft); !s) return s;
      return audit_.record(&who, ctx, Traits::kAction, "settings", Traits::kId);
    });
    if (!done) return done.error();
    return viewOf(std::move(draft));
  }

 private:
  static View viewOf(T settings) {
    View view;
    view.secret_configured = !Traits::sealed(settings).empty();
    Traits::sealed(settings).clear();
    view.settings = std::move(settings);
    return view;
  }

  Ports p_;
  UnitOfWork& work_;
  const AccessControl& access_;
  AuditService& audit_;
};

}  // namespace certsteward::services
