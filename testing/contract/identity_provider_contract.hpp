// Contract of IdentityProvider on every adapter (and on an embedding team's own): discovery
// answers the configured issuer and its endpoints, and refuses a provider that names itself
// otherwise (failed_precondition); the authorization URL carries the code flow, the client, the
// scopes, the login's state and nonce and an S256 challenge — never the verifier; a person's code
// is redeemed once for their subject and claims, and a code with another login's verifier or
// nonce, or never issued, is unauthenticated; an unreachable provider is unavailable.
//
// A suite header: include it from one test file of its own, after defining
// CERTSTEWARD_IDENTITY_PROVIDER_HARNESSES as the list of harnesses to run it against. A harness
// is default-constructible and provides:
//   bool available(); std::string reason();      // its provider runs here, or why not
//   ports::IdentityProvider& provider();
//   domain::OidcSettings settings();             // this client at a provider that answers
//   std::string clientSecret();
//   // What a browser sent to `authorizationUrl` brings back when `person` signs in there: the
//   // code of the provider's answer.
//   std::string signIn(const std::string& authorizationUrl, const std::string& person);
//   void makeUnreachable();                      // settings() now name a provider that is down
// and holds alice (in the group "pki-admins") and carol (in "pki-admins" and "pki-operators"),
// whose ID tokens carry preferred_username and groups.
#pragma once

#ifndef CERTSTEWARD_IDENTITY_PROVIDER_HARNESSES
#error "define CERTSTEWARD_IDENTITY_PROVIDER_HARNESSES (the harnesses) before including the suite"
#endif

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <certsteward/ports/identity_provider.hpp>

namespace certsteward::testing::identity_provider_contract {

template <class R>
std::string whyNot(const R& result) {
  return result.ok() ? std::string() : result.error().message;
}

template <class H>
ports::OidcProviderInfo discovered(H& h) {
  auto info = h.provider().discover(h.settings());
  REQUIRE_MESSAGE(info.ok(), whyNot(info));
  return *info;
}

// A login of its own per call (URL-safe values: they appear in the URL as they are).
inline ports::OidcLoginRequest newLogin(const std::string& tag) {
  return {"state" + tag + "0123456789", "nonce" + tag + "0123456789",
          "verifier" + tag + "0123456789abcdefghijklmnopqrstuvwxyz0123456789"};
}

inline std::vector<std::string> claim(const ports::OidcIdentity& identity, const char* name) {
  const auto it = identity.claims.find(name);
  auto values = it == identity.claims.end() ? std::vector<std::string>{} : it->second;
  std::sort(values.begin(), values.end());
  return values;
}

}  // namespace certsteward::testing::identity_provider_contract

TEST_CASE_TEMPLATE(
    "identity provider: discovery answers the configured issuer, and refuses a provider that names "
    "itself otherwise",
    H, CERTSTEWARD_IDENTITY_PROVIDER_HARNESSES) {
  using namespace certsteward::testing::identity_provider_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  const auto info = discovered(h);
  CHECK(info.issuer == h.settings().issuer);
  CHECK_FALSE(info.authorization_endpoint.empty());
  CHECK_FALSE(info.token_endpoint.empty());
  CHECK_FALSE(info.jwks_uri.empty());

  auto other = h.settings();
  other.issuer += "/";  // issuers compare exactly: not the one the provider names
  const auto refused = h.provider().discover(other);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == certsteward::domain::ErrorCode::failed_precondition);
}

TEST_CASE_TEMPLATE(
    "identity provider: the authorization URL carries the code flow, the scopes, the login and an "
    "S256 challenge, never the verifier",
    H, CERTSTEWARD_IDENTITY_PROVIDER_HARNESSES) {
  using namespace certsteward::testing::identity_provider_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  const auto info = discovered(h);
  const auto login = newLogin("url");
  const std::string url = h.provider().authorizationUrl(info, h.settings(), login);
  CAPTURE(url);
  CHECK(url.starts_with(info.authorization_endpoint));
  CHECK(url.find("response_type=code") != std::string::npos);
  CHECK(url.find("client_id=" + h.settings().client_id) != std::string::npos);
  CHECK(url.find("state=" + login.state) != std::string::npos);
  CHECK(url.find("nonce=" + login.nonce) != std::string::npos);
  CHECK(url.find("code_challenge=") != std::string::npos);
  CHECK(url.find("code_challenge_method=S256") != std::string::npos);
  CHECK(url.find(login.code_verifier) == std::string::npos);
  CHECK(url.find("scope=") != std::string::npos);
  for (const auto& scope : h.settings().scopes) {
    CAPTURE(scope);
    CHECK(url.find(scope) != std::string::npos);
  }
}

TEST_CASE_TEMPLATE(
    "identity provider: a person's code is redeemed once, for their subject and claims", H,
    CERTSTEWARD_IDENTITY_PROVIDER_HARNESSES) {
  using namespace certsteward::testing::identity_provider_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  const auto info = discovered(h);
  const struct {
    const char* person;
    std::vector<std::string> groups;
  } rows[] = {{"alice", {"pki-admins"}}, {"carol", {"pki-admins", "pki-operators"}}};
  std::vector<std::string> subjects;
  for (const auto& row : rows) {
    CAPTURE(row.person);
    const auto login = newLogin(row.person);
    const std::string code =
        h.signIn(h.provider().authorizationUrl(info, h.settings(), login), row.person);
    auto identity = h.provider().redeem(info, h.settings(), h.clientSecret(), login, code);
    REQUIRE_MESSAGE(identity.ok(), whyNot(identity));
    CHECK_FALSE(identity->subject.empty());
    CHECK(claim(*identity, "preferred_username") == std::vector<std::string>{row.person});
    CHECK(claim(*identity, "groups") == row.groups);
    subjects.push_back(identity->subject);

    const auto again = h.provider().redeem(info, h.settings(), h.clientSecret(), login, code);
    REQUIRE_FALSE(again.ok());
    CHECK(again.error().code == certsteward::domain::ErrorCode::unauthenticated);
  }
  CHECK(subjects[0] != subjects[1]);
}

TEST_CASE_TEMPLATE(
    "identity provider: a code redeemed with another verifier or nonce, or never issued, is "
    "unauthenticated",
    H, CERTSTEWARD_IDENTITY_PROVIDER_HARNESSES) {
  using namespace certsteward::testing::identity_provider_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  const auto info = discovered(h);
  const auto login = newLogin("pkce");
  auto otherVerifier = login;
  otherVerifier.code_verifier = newLogin("forged").code_verifier;
  auto otherNonce = login;
  otherNonce.nonce = newLogin("forged").nonce;
  for (const auto& presented : {otherVerifier, otherNonce}) {
    const std::string code =
        h.signIn(h.provider().authorizationUrl(info, h.settings(), login), "alice");
    const auto refused = h.provider().redeem(info, h.settings(), h.clientSecret(), presented, code);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == certsteward::domain::ErrorCode::unauthenticated);
  }
  const auto unknown =
      h.provider().redeem(info, h.settings(), h.clientSecret(), login, "never-issued-code");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == certsteward::domain::ErrorCode::unauthenticated);
}

TEST_CASE_TEMPLATE("identity provider: an unreachable provider is unavailable", H,
                   CERTSTEWARD_IDENTITY_PROVIDER_HARNESSES) {
  using namespace certsteward::testing::identity_provider_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  h.makeUnreachable();
  const auto settings = h.settings();
  const auto discovering = h.provider().discover(settings);
  REQUIRE_FALSE(discovering.ok());
  CHECK(discovering.error().code == certsteward::domain::ErrorCode::unavailable);
  // Endpoints where the provider was said to be (a document read before it went down).
  const certsteward::ports::OidcProviderInfo gone{settings.issuer, settings.issuer + "/auth",
                                                  settings.issuer + "/token",
                                                  settings.issuer + "/jwks"};
  const auto redeeming =
      h.provider().redeem(gone, settings, h.clientSecret(), newLogin("down"), "some-code");
  REQUIRE_FALSE(redeeming.ok());
  CHECK(redeeming.error().code == certsteward::domain::ErrorCode::unavailable);
}
