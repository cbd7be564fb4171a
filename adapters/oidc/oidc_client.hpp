// OidcClient: the IdentityProvider port over HTTPS (libcurl through adapters/common, https or
// http to a loopback host only, the provider's certificate verified, no redirects followed) and
// the ID token checks of id_token.hpp. Discovery and the JWKS are read at each login (logins are
// rare, and a rotated key is then never missed).
#pragma once

#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/identity_provider.hpp>

namespace certsteward::adapters::oidc {

class OidcClient : public ports::IdentityProvider {
 public:
  explicit OidcClient(const ports::Clock& clock) : clock_(clock) {}

  domain::Result<ports::OidcProviderInfo> discover(const domain::OidcSettings& settings) override;
  std::string authorizationUrl(const ports::OidcProviderInfo& provider,
                               const domain::OidcSettings& settings,
                               const ports::OidcLoginRequest& login) override;
  domain::Result<ports::OidcIdentity> redeem(const ports::OidcProviderInfo& provider,
                                             const domain::OidcSettings& settings,
                                             std::string_view clientSecret,
                                             const ports::OidcLoginRequest& login,
                                             const std::string& code) override;

 private:
  const ports::Clock& clock_;
};

}  // namespace certsteward::adapters::oidc
