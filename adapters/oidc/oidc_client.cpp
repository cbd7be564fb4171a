// The authorization code flow's server side: discovery, the authorization URL with PKCE, the
// code exchange and the ID token's verification.
#include <certsteward/adapters/oidc/oidc_client.hpp>

#include <openssl/evp.h>

#include <boost/json.hpp>

#include <certsteward/adapters/common/http_client.hpp>
#include <certsteward/adapters/oidc/id_token.hpp>
#include <certsteward/domain/encoding.hpp>

namespace certsteward::adapters::oidc {
namespace {

namespace json = boost::json;
using domain::ErrorCode;
using domain::makeError;

constexpr std::size_t kDocumentLimit = 256 * 1024;

std::string sha256(std::string_view data) {
  unsigned char digest[32];
  unsigned int n = 0;
  EVP_Digest(data.data(), data.size(), digest, &n, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(digest), n);
}

std::string field(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

std::optional<json::object> parseObject(const std::string& text) {
  boost::system::error_code ec;
  auto v = json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.as_object());
}

common::HttpRequest requestTo(const std::string& url, const domain::OidcSettings& settings) {
  common::HttpRequest r;
  r.url = url;
  r.ca_pem = settings.ca_bundle;
  r.timeout = std::chrono::seconds{10};
  r.response_limit = kDocumentLimit;
  r.headers = {"Accept: application/json"};
  return r;
}

domain::Error unreachable(const domain::Error& e, const char* what) {
  return makeError(
      e.code == ErrorCode::failed_precondition ? ErrorCode::failed_precondition
                                               : ErrorCode::unavailable,
      std::string("the identity provider's ") + what + " could not be read: " + e.message,
      "IDP_UNREACHABLE");
}

}  // namespace

domain::Result<ports::OidcProviderInfo> OidcClient::discover(const domain::OidcSettings& s) {
  std::string base = s.issuer;
  while (base.ends_with("/"))
    base.pop_back();
  auto answer = common::getHttp(requestTo(base + "/.well-known/openid-configuration", s));
  if (!answer) return unreachable(answer.error(), "discovery document");
  if (answer->status != 200) {
    return makeError(ErrorCode::unavailable,
                     "the identity provider's discovery document answered HTTP " +
                         std::to_string(answer->status) + " (is issuer right?)",
                     "IDP_UNREACHABLE");
  }
  auto doc = parseObject(answer->body);
  if (!doc) {
    return makeError(ErrorCode::failed_precondition,
                     "the identity provider's discovery document is not JSON");
  }
  ports::OidcProviderInfo info{field(*doc, "issuer"), field(*doc, "authorization_endpoint"),
                               field(*doc, "token_endpoint"), field(*doc, "jwks_uri")};
  if (info.issuer != s.issuer) {  // OpenID Connect Discovery 4.3
    return makeError(ErrorCode::failed_precondition,
                     "the identity provider names itself '" + info.issuer.substr(0, 200) +
                         "', not the configured issuer '" + s.issuer + "'");
  }
  // An https issuer keeps its endpoints on https (the client secret and the codes go there);
  // http is only ever accepted on a loopback test provider.
  const bool secure = s.issuer.starts_with("https://");
  for (const auto* url : {&info.authorization_endpoint, &info.token_endpoint, &info.jwks_uri}) {
    if (!common::isAllowedHttpUrl(*url) || (secure && !url->starts_with("https://"))) {
      return makeError(ErrorCode::failed_precondition,
                       "the identity provider's discovery document lacks an https "
                       "authorization_endpoint, token_endpoint or jwks_uri");
    }
  }
  return info;
}

std::string OidcClient::authorizationUrl(const ports::OidcProviderInfo& provider,
                                         const domain::OidcSettings& s,
                                         const ports::OidcLoginRequest& login) {
  std::string scopes;
  for (const auto& scope : s.scopes)
    scopes += (scopes.empty() ? "" : " ") + scope;
  const char joiner = provider.authorization_endpoint.find('?') == std::string::npos ? '?' : '&';
  return provider.authorization_endpoint + joiner +
         "response_type=code&client_id=" + domain::percentEncode(s.client_id) +
         "&redirect_uri=" + domain::percentEncode(s.redirect_uri) +
         "&scope=" + domain::percentEncode(scopes) +
         "&state=" + domain::percentEncode(login.state) +
         "&nonce=" + domain::percentEncode(login.nonce) +
         "&code_challenge=" + domain::base64UrlEncode(sha256(login.code_verifier)) +
         "&code_challenge_method=S256";
}

domain::Result<ports::OidcIdentity> OidcClient::redeem(const ports::OidcProviderInfo& provider,
                                                       const domain::OidcSettings& s,
                                                       std::string_view clientSecret,
                                                       const ports::OidcLoginRequest& login,
                                                       const std::string& code) {
  auto exchange = requestTo(provider.token_endpoint, s);
  exchange.body = "grant_type=authorization_code&code=" + domain::percentEncode(code) +
                  "&redirect_uri=" + domain::percentEncode(s.redirect_uri) +
                  "&code_verifier=" + domain::percentEncode(login.code_verifier);
  exchange.headers.emplace_back("Content-Type: application/x-www-form-urlencoded");
  if (clientSecret.empty()) {
    exchange.body += "&client_id=" + domain::percentEncode(s.client_id);
  } else {  // client_secret_basic (RFC 6749 2.3.1: the parts form-encoded first)
    exchange.headers.push_back("Authorization: Basic " +
                               domain::base64Encode(domain::percentEncode(s.client_id) + ":" +
                                                    domain::percentEncode(clientSecret)));
    exchange.secrets = {std::string(clientSecret)};
  }
  exchange.secrets.push_back(code);
  auto answer = common::postHttp(exchange);
  if (!answer) return unreachable(answer.error(), "token endpoint");
  const auto body = parseObject(answer->body);
  if (answer->status != 200 || !body) {
    std::string why = body ? field(*body, "error") : std::string();
    const std::string description = body ? field(*body, "error_description") : std::string();
    if (!description.empty()) why += (why.empty() ? "" : ": ") + description.substr(0, 200);
    return makeError(ErrorCode::unauthenticated,
                     "the identity provider refused the login code (HTTP " +
                         std::to_string(answer->status) + (why.empty() ? "" : ", " + why) + ")",
                     "IDP_REFUSED");
  }
  const std::string idToken = field(*body, "id_token");
  if (idToken.empty()) {
    return makeError(ErrorCode::unauthenticated,
                     "the identity provider answered without an ID token (is the openid scope "
                     "granted?)",
                     "ID_TOKEN_INVALID");
  }
  auto keys = common::getHttp(requestTo(provider.jwks_uri, s));
  if (!keys) return unreachable(keys.error(), "signing keys (JWKS)");
  if (keys->status != 200) {
    return makeError(
        ErrorCode::unavailable,
        "the identity provider's signing keys (JWKS) answered HTTP " + std::to_string(keys->status),
        "IDP_UNREACHABLE");
  }
  auto verified =
      verifyIdToken(idToken, keys->body, {s.issuer, s.client_id, login.nonce, clock_.now()});
  if (!verified) return verified.error();
  return ports::OidcIdentity{std::move(verified->subject), std::move(verified->claims)};
}

}  // namespace certsteward::adapters::oidc
