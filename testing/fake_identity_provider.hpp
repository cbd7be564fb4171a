// An OpenID provider for tests of single sign-on (this project's and an embedding team's): the
// test signs a person in at it — approve() turns the login the browser was sent with into a code
// — and redeem() answers that person's identity only for that code, once, and only with the
// login's own nonce and PKCE verifier, as a real provider and the ID token checks would. It can
// be made unreachable (every call), or named by an issuer of its own (setIssuer: discovery under
// another configured issuer is refused, as a real provider's document would be). Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <certsteward/domain/encoding.hpp>
#include <certsteward/ports/identity_provider.hpp>

namespace certsteward::testing {

class FakeIdentityProvider : public ports::IdentityProvider {
 public:
  void setReachable(bool reachable) {
    std::lock_guard lock(mu_);
    reachable_ = reachable;
  }
  // The issuer the provider names itself in its discovery document ("": the configured one).
  void setIssuer(std::string issuer) {
    std::lock_guard lock(mu_);
    issuer_ = std::move(issuer);
  }
  // The login of the last authorizationUrl() (what the browser carried to the provider).
  ports::OidcLoginRequest lastLogin() const {
    std::lock_guard lock(mu_);
    return last_;
  }
  // The person signs in at the provider: the code for `login`.
  std::string approve(const ports::OidcLoginRequest& login, const std::string& subject,
                      std::map<std::string, std::vector<std::string>> claims) {
    std::lock_guard lock(mu_);
    const std::string code = "code-" + std::to_string(++codes_);
    issued_[code] = {login, {subject, std::move(claims)}};
    return code;
  }

  domain::Result<ports::OidcProviderInfo> discover(const domain::OidcSettings& settings) override {
    std::lock_guard lock(mu_);
    if (!reachable_) return unreachable("discovery document");
    if (!issuer_.empty() && issuer_ != settings.issuer) {
      return domain::makeError(domain::ErrorCode::failed_precondition,
                               "the identity provider names itself '" + issuer_ +
                                   "', not the configured issuer '" + settings.issuer + "'");
    }
    return ports::OidcProviderInfo{settings.issuer, settings.issuer + "/authorize",
                                   settings.issuer + "/token", settings.issuer + "/jwks"};
  }
  // As a real client builds it; the challenge stands for S256 of the verifier (not the verifier).
  std::string authorizationUrl(const ports::OidcProviderInfo& provider,
                               const domain::OidcSettings& settings,
                               const ports::OidcLoginRequest& login) override {
    std::lock_guard lock(mu_);
    last_ = login;
    std::string scopes;
    for (const auto& scope : settings.scopes)
      scopes += (scopes.empty() ? "" : " ") + scope;
    return provider.authorization_endpoint +
           "?response_type=code&client_id=" + domain::percentEncode(settings.client_id) +
           "&redirect_uri=" + domain::percentEncode(settings.redirect_uri) +
           "&scope=" + domain::percentEncode(scopes) +
           "&state=" + domain::percentEncode(login.state) +
           "&nonce=" + domain::percentEncode(login.nonce) + "&code_challenge=fake-s256-" +
           std::to_string(std::hash<std::string>{}(login.code_verifier)) +
           "&code_challenge_method=S256";
  }
  domain::Result<ports::OidcIdentity> redeem(const ports::OidcProviderInfo&,
                                             const domain::OidcSettings&, std::string_view,
                                             const ports::OidcLoginRequest& login,
                                             const std::string& code) override {
    std::lock_guard lock(mu_);
    if (!reachable_) return unreachable("token endpoint");
    const auto it = issued_.find(code);
    if (it == issued_.end()) {
      return domain::makeError(domain::ErrorCode::unauthenticated,
                               "the identity provider refused the login code (invalid_grant)",
                               "IDP_REFUSED");
    }
    const auto [expected, identity] = it->second;
    issued_.erase(it);  // a code is used once
    if (expected.code_verifier != login.code_verifier) {
      return domain::makeError(domain::ErrorCode::unauthenticated,
                               "the identity provider refused the login code (PKCE)",
                               "IDP_REFUSED");
    }
    if (expected.nonce != login.nonce) {
      return domain::makeError(domain::ErrorCode::unauthenticated,
                               "the ID token was refused: its nonce is not the one of this login",
                               "ID_TOKEN_INVALID");
    }
    return identity;
  }

 private:
  static domain::Error unreachable(const std::string& what) {
    return domain::makeError(domain::ErrorCode::unavailable,
                             "the identity provider's " + what + " could not be read",
                             "IDP_UNREACHABLE");
  }

  mutable std::mutex mu_;
  bool reachable_ = true;
  std::string issuer_;
  int codes_ = 0;
  ports::OidcLoginRequest last_;
  std::map<std::string, std::pair<ports::OidcLoginRequest, ports::OidcIdentity>> issued_;
};

}  // namespace certsteward::testing
