// JWT verification beyond libjwt's signature check, and bcrypt's limits.
#include <doctest/doctest.h>

#include <jwt.h>

#include <cstdlib>

#include <certsteward/adapters/crypto/bcrypt_password_hasher.hpp>
#include <certsteward/adapters/crypto/ed25519_license_verifier.hpp>
#include <certsteward/adapters/crypto/jwt_token_codec.hpp>
#include "support/ed25519_keys.hpp"

using namespace certsteward;
using namespace std::chrono_literals;

namespace {

const std::string kSecret = "unit-test-secret-with-at-least-32-bytes!";
const domain::Timestamp kNow = domain::fromUnixSeconds(1800000000);

adapters::crypto::JwtTokenCodec codec(std::string issuer = "certsteward",
                                      std::string audience = "certsteward-api") {
  return adapters::crypto::JwtTokenCodec({kSecret, std::move(issuer), std::move(audience)});
}

ports::TokenClaims claims(ports::TokenKind kind = ports::TokenKind::access) {
  return {"0123456789abcdef01234567",
          "jti-1",
          kind,
          kind == ports::TokenKind::refresh ? "fam" : "",
          kNow,
          kNow + 15min};
}

// A token signed with the same key but another algorithm (libjwt alone would accept it).
std::string hs512Token() {
  jwt_t* jwt = nullptr;
  jwt_new(&jwt);
  jwt_set_alg(jwt, JWT_ALG_HS512, reinterpret_cast<const unsigned char*>(kSecret.data()),
              static_cast<int>(kSecret.size()));
  jwt_add_grant(jwt, "sub", "0123456789abcdef01234567");
  jwt_add_grant(jwt, "jti", "x");
  jwt_add_grant(jwt, "iss", "certsteward");
  jwt_add_grant(jwt, "aud", "certsteward-api");
  jwt_add_grant(jwt, "typ", "access");
  jwt_add_grant_int(jwt, "exp", 1800000900);
  char* s = jwt_encode_str(jwt);
  std::string out(s);
  std::free(s);
  jwt_free(jwt);
  return out;
}

}  // namespace

TEST_CASE("tokens: a token round-trips with its claims") {
  const auto token = *codec().encode(claims(ports::TokenKind::refresh));
  const auto decoded = codec().decode(token, kNow + 1min);
  REQUIRE(decoded.ok());
  CHECK(decoded->subject == "0123456789abcdef01234567");
  CHECK(decoded->token_id == "jti-1");
  CHECK(decoded->kind == ports::TokenKind::refresh);
  CHECK(decoded->family_id == "fam");
  CHECK(decoded->expires_at == kNow + 15min);
}

TEST_CASE("tokens: expiry, issuer, audience, algorithm and signature are all checked") {
  const auto token = *codec().encode(claims());
  const auto expired = codec().decode(token, kNow + 15min);
  REQUIRE_FALSE(expired.ok());
  CHECK(expired.error().reason == "TOKEN_EXPIRED");
  CHECK(codec("someone-else").decode(token, kNow).error().reason == "TOKEN_INVALID");
  CHECK(codec("certsteward", "other-api").decode(token, kNow).error().reason == "TOKEN_INVALID");
  CHECK(codec().decode(hs512Token(), kNow).error().reason == "TOKEN_INVALID");
  adapters::crypto::JwtTokenCodec otherKey(
      {std::string(40, 'z'), "certsteward", "certsteward-api"});
  CHECK(otherKey.decode(token, kNow).error().reason == "TOKEN_INVALID");
  std::string tampered = token;
  tampered[tampered.size() / 2] = tampered[tampered.size() / 2] == 'A' ? 'B' : 'A';
  CHECK_FALSE(codec().decode(tampered, kNow).ok());
  CHECK_FALSE(codec().decode("", kNow).ok());
  CHECK_FALSE(codec().decode("not.a.jwt", kNow).ok());
  CHECK_FALSE(codec().decode(std::string(5000, 'a'), kNow).ok());
}

TEST_CASE("tokens: a remembered token answers exactly like a fresh verification") {
  auto verifier = codec();
  const auto token = *verifier.encode(claims());
  for (int i = 0; i < 3; ++i) {  // the first verifies, the others are remembered
    const auto decoded = verifier.decode(token, kNow + 1min);
    REQUIRE(decoded.ok());
    CHECK(decoded->token_id == "jti-1");
    CHECK(decoded->expires_at == kNow + 15min);
  }
  // Expiry still applies to a remembered token, to the millisecond.
  CHECK(verifier.decode(token, kNow + 15min - 1ms).ok());
  CHECK(verifier.decode(token, kNow + 15min).error().reason == "TOKEN_EXPIRED");
  // A tampered copy of a remembered token is verified on its own, and refused.
  std::string tampered = token;
  tampered[tampered.size() - 3] = tampered[tampered.size() - 3] == 'A' ? 'B' : 'A';
  CHECK_FALSE(verifier.decode(tampered, kNow + 1min).ok());
}

TEST_CASE("passwords: bcrypt round-trips and refuses what it would truncate") {
  adapters::crypto::BcryptPasswordHasher hasher(10);
  const auto hash = hasher.hash("correct horse battery");
  REQUIRE(hash.ok());
  CHECK(hash->starts_with("$2b$10$"));
  CHECK(hasher.verify("correct horse battery", *hash));
  CHECK_FALSE(hasher.verify("correct horse batterz", *hash));
  CHECK_FALSE(hasher.verify("correct horse battery", "garbage"));
  CHECK(*hasher.hash("same") != *hasher.hash("same"));  // salted
  CHECK(hasher.hash(std::string(73, 'a')).error().code == domain::ErrorCode::invalid_argument);
  CHECK(hasher.hash(std::string("nul\0byte", 8)).error().code ==
        domain::ErrorCode::invalid_argument);
  // 72 bytes are accepted; a 73rd byte must not be silently ignored at verify time.
  const auto h72 = hasher.hash(std::string(72, 'a'));
  REQUIRE(h72.ok());
  CHECK_FALSE(hasher.verify(std::string(73, 'a'), *h72));
}

TEST_CASE("tokens: each kind round-trips as itself") {
  for (auto kind : {ports::TokenKind::access, ports::TokenKind::refresh, ports::TokenKind::otp}) {
    const auto decoded = codec().decode(*codec().encode(claims(kind)), kNow);
    REQUIRE(decoded.ok());
    CHECK(decoded->kind == kind);
  }
}

TEST_CASE("licence keys: Ed25519 signatures verify and tampering is refused") {
  const auto [priv, pub] = certsteward::testing::ed25519KeyPairPem();
  const auto key = adapters::crypto::Ed25519LicenseVerifier::sign(
      priv,
      R"({"license_id":"lic-1","plan_name":"Enterprise 50","cert_limit":50,"exp":1900000000})");
  REQUIRE(key.ok());
  adapters::crypto::Ed25519LicenseVerifier verifier(pub);
  const auto license = verifier.verify(*key);
  REQUIRE(license.ok());
  CHECK(license->plan_name == "Enterprise 50");
  CHECK(license->cert_limit == 50);
  CHECK(license->expires_at == domain::fromUnixSeconds(1900000000));
  CHECK(license->activation_id == "lic-1");
  CHECK(license->fingerprint.size() == 32);
  std::string tampered = *key;
  tampered[5] = tampered[5] == 'A' ? 'B' : 'A';
  CHECK(verifier.verify(tampered).error().code == domain::ErrorCode::invalid_argument);
  const auto [otherPriv, otherPub] = certsteward::testing::ed25519KeyPairPem();
  CHECK_FALSE(adapters::crypto::Ed25519LicenseVerifier(otherPub).verify(*key).ok());
  CHECK_FALSE(verifier.verify("no-dot-here").ok());
  CHECK(adapters::crypto::Ed25519LicenseVerifier("").verify(*key).error().code ==
        domain::ErrorCode::failed_precondition);
  const auto noExp = adapters::crypto::Ed25519LicenseVerifier::sign(priv, R"({"plan_name":"x"})");
  CHECK_FALSE(verifier.verify(*noExp).ok());
}
