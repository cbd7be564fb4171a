// OpenID Connect ID token verification, table-driven over tokens signed here with RSA and
// EC keys published in a JWKS: the good token passes; a changed claim, another key, "none" or
// an HMAC algorithm, another issuer or audience, an expired token, a wrong nonce each fail.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <functional>
#include <string>

#include <certsteward/adapters/oidc/id_token.hpp>
#include <certsteward/domain/encoding.hpp>
#include "support/test_signing_key.hpp"

using namespace certsteward;
using adapters::oidc::IdTokenExpectations;
using adapters::oidc::verifyIdToken;
using testing::signJwt;
using testing::TestSigningKey;
namespace json = boost::json;

namespace {

const domain::Timestamp kNow = domain::Timestamp{std::chrono::seconds{1'800'000'000}};

json::object goodClaims() {
  const auto now = domain::unixSeconds(kNow);
  return {{"iss", "https://idp.example.test"},
          {"sub", "user-42"},
          {"aud", "certsteward"},
          {"exp", now + 300},
          {"iat", now - 10},
          {"nonce", "nonce-1"},
          {"preferred_username", "alice"},
          {"groups", json::array{"pki-admins", "staff"}}};
}

std::string token(const TestSigningKey& key, const json::object& claims, json::object header = {}) {
  return signJwt(key, claims, std::move(header));
}

IdTokenExpectations expected() {
  return {"https://idp.example.test", "certsteward", "nonce-1", kNow, std::chrono::seconds{60}};
}

}  // namespace

TEST_CASE("id token: RS256, PS256 and ES256 tokens of the provider's keys pass") {
  for (const char* alg : {"RS256", "PS256", "ES256"}) {
    CAPTURE(alg);
    const TestSigningKey key(alg, std::string("k-") + alg);
    const TestSigningKey other(alg, "k-other");
    const std::string jwks =
        json::serialize(json::object{{"keys", json::array{other.jwk(), key.jwk()}}});
    auto ok = verifyIdToken(token(key, goodClaims()), jwks, expected());
    REQUIRE_MESSAGE(ok.ok(), ok.error().message);
    CHECK(ok->subject == "user-42");
    CHECK(ok->first("preferred_username") == "alice");
    CHECK(ok->claims.at("groups") == std::vector<std::string>{"pki-admins", "staff"});
  }
}

TEST_CASE("id token: every forgery and mismatch is refused, naming the check") {
  const TestSigningKey key("RS256", "k1");
  const TestSigningKey stranger("RS256", "k1");  // the same kid, not the provider's key
  const TestSigningKey ec("ES256", "k2");
  const std::string jwks =
      json::serialize(json::object{{"keys", json::array{key.jwk(), ec.jwk()}}});
  const auto with = [&](const std::function<void(json::object&)>& change) {
    auto c = goodClaims();
    change(c);
    return token(key, c);
  };
  const auto now = domain::unixSeconds(kNow);
  const std::string good = token(key, goodClaims());
  const auto dot = good.find('.');
  const auto dot2 = good.find('.', dot + 1);
  auto forgedClaims = goodClaims();
  forgedClaims["preferred_username"] = "root";
  const std::string tampered = good.substr(0, dot) + "." +
                               domain::base64UrlEncode(json::serialize(forgedClaims)) +
                               good.substr(dot2);
  const std::string unsignedToken = domain::base64UrlEncode(R"({"alg":"none"})") + "." +
                                    domain::base64UrlEncode(json::serialize(goodClaims())) + ".";
  struct Row {
    const char* what;
    std::string token;
    const char* because;
  };
  const Row rows[] = {
      {"a changed claim", tampered, "signature"},
      {"another key with the provider's kid", token(stranger, goodClaims()), "signature"},
      {"alg none", unsignedToken, "algorithm"},
      {"alg HS256 (an HMAC algorithm)", token(key, goodClaims(), {{"alg", "HS256"}, {"kid", "k1"}}),
       "algorithm"},
      {"an RS256 header on the EC key's kid",
       token(key, goodClaims(), {{"alg", "RS256"}, {"kid", "k2"}}), "key"},
      {"another issuer", with([](json::object& c) { c["iss"] = "https://evil.test"; }), "issuer"},
      {"another audience", with([](json::object& c) { c["aud"] = "someone-else"; }), "client"},
      {"several audiences without azp", with([](json::object& c) {
         c["aud"] = json::array{"certsteward", "other"};
       }),
       "azp"},
      {"expired", with([&](json::object& c) { c["exp"] = now - 61; }), "expired"},
      {"no exp", with([](json::object& c) { c.erase("exp"); }), "expired"},
      {"issued in the future", with([&](json::object& c) { c["iat"] = now + 3600; }), "future"},
      {"a wrong nonce", with([](json::object& c) { c["nonce"] = "nonce-2"; }), "nonce"},
      {"no nonce", with([](json::object& c) { c.erase("nonce"); }), "nonce"},
      {"no subject", with([](json::object& c) { c.erase("sub"); }), "subject"},
      {"two parts", good.substr(0, dot2), "three parts"},
      {"nbf in the future", with([&](json::object& c) { c["nbf"] = now + 3600; }), "not valid yet"},
      {"azp of another client", with([](json::object& c) { c["azp"] = "other"; }), "azp"},
      {"a critical header extension",
       token(key, goodClaims(), {{"alg", "RS256"}, {"kid", "k1"}, {"crit", json::array{"exp"}}}),
       "critical"},
      {"an ES256 signature of the wrong length",
       [&] {
         const std::string t = token(ec, goodClaims());
         const auto cut = t.rfind('.');
         auto sig = *domain::base64UrlDecode(t.substr(cut + 1));
         sig.pop_back();  // 63 bytes instead of r || s
         return t.substr(0, cut + 1) + domain::base64UrlEncode(sig);
       }(),
       "signature"},
      {"garbage", "a.b.c", "base64url"},
  };
  for (const auto& row : rows) {
    CAPTURE(std::string(row.what));
    auto refused = verifyIdToken(row.token, jwks, expected());
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::unauthenticated);
    CHECK(refused.error().reason == "ID_TOKEN_INVALID");
    CHECK_MESSAGE(refused.error().message.find(row.because) != std::string::npos,
                  refused.error().message);
  }
  // Within the leeway an expiry is still accepted; several audiences with azp are fine.
  CHECK(verifyIdToken(with([&](json::object& c) { c["exp"] = now - 30; }), jwks, expected()).ok());
  CHECK(verifyIdToken(with([](json::object& c) {
                        c["aud"] = json::array{"certsteward", "other"};
                        c["azp"] = "certsteward";
                      }),
                      jwks, expected())
            .ok());
  // A key under 2048 bits is no key; without a kid, several candidate keys are none.
  const TestSigningKey weak("RS256", "weak", 1024);
  const std::string weakSet = json::serialize(json::object{{"keys", json::array{weak.jwk()}}});
  CHECK(verifyIdToken(token(weak, goodClaims()), weakSet, expected())
            .error()
            .message.find("no key") != std::string::npos);
  const TestSigningKey second("RS256", "k3");
  const std::string twoKeys =
      json::serialize(json::object{{"keys", json::array{key.jwk(), second.jwk()}}});
  auto noKid = verifyIdToken(token(key, goodClaims(), {{"alg", "RS256"}}), twoKeys, expected());
  CHECK(noKid.error().message.find("no key") != std::string::npos);
  CHECK(verifyIdToken(token(key, goodClaims(), {{"alg", "RS256"}}), jwks, expected()).ok());
  // A JWKS that is not one refuses everything.
  CHECK_FALSE(verifyIdToken(good, "not json", expected()).ok());
  CHECK_FALSE(verifyIdToken(good, R"({"keys":[]})", expected()).ok());
}
