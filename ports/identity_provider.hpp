// IdentityProvider: an OpenID Connect provider that signs people in for the org (authorization
// code flow with PKCE). The settings come with every call; the adapter keeps no state.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/oidc_settings.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

// What discovery found (OpenID Connect Discovery 1.0): the issuer as the provider names it (equal
// to the configured one) and its endpoints.
struct OidcProviderInfo {
  std::string issuer;
  std::string authorization_endpoint;
  std::string token_endpoint;
  std::string jwks_uri;
};

// One login in flight: what the browser carries to the provider and back.
struct OidcLoginRequest {
  std::string state;
  std::string nonce;
  std::string code_verifier;  // PKCE (RFC 7636); the provider sees its S256 challenge
};

// A verified ID token: its subject and its claims (strings; booleans as "true"/"false"; arrays
// of strings as their values).
struct OidcIdentity {
  std::string subject;
  std::map<std::string, std::vector<std::string>> claims;
};

class IdentityProvider {
 public:
  virtual ~IdentityProvider() = default;

  /**
   * Reads <issuer>/.well-known/openid-configuration. unavailable when the provider cannot be
   * reached; failed_precondition when the document is not usable (another issuer, endpoints
   * that are not https). Thread-safe.
   */
  virtual domain::Result<OidcProviderInfo> discover(const domain::OidcSettings& settings) = 0;

  /** The authorization endpoint's URL for `login` (response_type code, S256, the scopes). */
  virtual std::string authorizationUrl(const OidcProviderInfo& provider,
                                       const domain::OidcSettings& settings,
                                       const OidcLoginRequest& login) = 0;

  /**
   * Exchanges `code` at the token endpoint (with the client secret when there is one, and the
   * PKCE verifier) and verifies the ID token: its signature with the provider's JWKS, issuer,
   * audience, expiry and the login's nonce. unauthenticated when the provider refuses the code
   * or the token fails a check (the message says which); unavailable when unreachable.
   */
  virtual domain::Result<OidcIdentity> redeem(const OidcProviderInfo& provider,
                                              const domain::OidcSettings& settings,
                                              std::string_view clientSecret,
                                              const OidcLoginRequest& login,
                                              const std::string& code) = 0;
};

}  // namespace certsteward::ports
