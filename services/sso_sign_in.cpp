#include <certsteward/services/sso_sign_in.hpp>

namespace certsteward::services {

domain::Result<LoginResult> SsoSignIn::complete(const std::string& code, const std::string& state,
                                                const std::string& loginState,
                                                const std::string& error,
                                                const RequestContext& ctx) {
  const auto refused = [&](const domain::Error& e) -> domain::Error {
    if (e.code == domain::ErrorCode::resource_exhausted) return e;
    if (auto s = audit_.record(nullptr, ctx, "auth.login_failed", "user", "", std::nullopt,
                               "oidc: " + e.message.substr(0, 300));
        !s) {
      return makeError(domain::ErrorCode::internal, "the refused sign-in could not be audited");
    }
    return e;
  };
  auto user = oidc_.finish(code, state, loginState, error, ctx);
  if (!user) return refused(user.error());
  auto session = auth_.completeExternal(*user, ctx, "oidc");
  if (!session) return refused(session.error());
  return session;
}

}  // namespace certsteward::services
