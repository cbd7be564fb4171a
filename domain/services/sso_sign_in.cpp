#include "domain/services/sso_sign_in.hpp"

namespace certsteward::domain {

Result<LoginResult> SsoSignIn::complete(const std::string& code, const std::string& state,
                                        const std::string& loginState, const std::string& error,
                                        const RequestContext& ctx) {
  const auto refused = [&](const Error& e) -> Error {
    if (e.code == ErrorCode::resource_exhausted) return e;
    if (auto s = audit_.record(nullptr, ctx, "auth.login_failed", "user", "", std::nullopt,
                               "oidc: " + e.message.substr(0, 300));
        !s) {
      return makeError(ErrorCode::internal, "the refused sign-in could not be audited");
    }
    return e;
  };
  auto user = oidc_.finish(code, state, loginState, error, ctx);
  if (!user) return refused(user.error());
  auto session = auth_.completeExternal(*user, ctx, "oidc");
  if (!session) return refused(session.error());
  return session;
}

}  // namespace certsteward::domain
