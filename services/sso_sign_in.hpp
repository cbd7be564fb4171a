// SsoSignIn: the end of a single sign-on (OIDC) login. The provider's answer is checked
// (OidcLogin::finish), the user's session opened with its audit entry in one transaction
// (AuthService::completeExternal), and a refusal audited as auth.login_failed — except a rate
// limit's, which would let anyone flood the audit log.
#pragma once

#include <string>

#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/auth_service.hpp>
#include <certsteward/services/oidc_login.hpp>

namespace certsteward::services {

class SsoSignIn {
 public:
  SsoSignIn(OidcLogin& oidc, AuthService& auth, AuditService& audit)
      : oidc_(oidc), auth_(auth), audit_(audit) {}

  // The provider's redirect: `code`, `state` and `error` from its query, `loginState` from the
  // browser's cookie. The errors of OidcLogin::finish and AuthService::completeExternal; internal
  // when the refusal itself cannot be audited.
  domain::Result<LoginResult> complete(const std::string& code, const std::string& state,
                                       const std::string& loginState, const std::string& error,
                                       const RequestContext& ctx);

 private:
  OidcLogin& oidc_;
  AuthService& auth_;
  AuditService& audit_;
};

}  // namespace certsteward::services
