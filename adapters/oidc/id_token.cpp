// ID token verification with OpenSSL 3 (keys from JWKs through EVP_PKEY_fromdata) and
// Boost.JSON; nothing of either leaves this file.
#include <certsteward/adapters/oidc/id_token.hpp>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include <boost/json.hpp>

#include <cmath>
#include <memory>

#include <certsteward/domain/encoding.hpp>

namespace certsteward::adapters::oidc {
namespace {

namespace json = boost::json;
using domain::ErrorCode;

domain::Error invalid(const std::string& why) {
  return domain::makeError(ErrorCode::unauthenticated, "the ID token was refused: " + why,
                           "ID_TOKEN_INVALID");
}

template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
using Pkey = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY, EVP_PKEY_free>>;
using PkeyCtx = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;
using MdCtx = std::unique_ptr<EVP_MD_CTX, Deleter<EVP_MD_CTX, EVP_MD_CTX_free>>;
using Bn = std::unique_ptr<BIGNUM, Deleter<BIGNUM, BN_free>>;
using ParamBld = std::unique_ptr<OSSL_PARAM_BLD, Deleter<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>>;
using Params = std::unique_ptr<OSSL_PARAM, Deleter<OSSL_PARAM, OSSL_PARAM_free>>;
using EcdsaSig = std::unique_ptr<ECDSA_SIG, Deleter<ECDSA_SIG, ECDSA_SIG_free>>;

std::optional<json::object> parseObject(std::string_view text) {
  boost::system::error_code ec;
  auto v = json::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  return std::move(v.as_object());
}

std::string stringField(const json::object& o, const char* key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string();
}

std::optional<std::string> field64(const json::object& o, const char* key) {
  const std::string text = stringField(o, key);
  if (text.empty()) return std::nullopt;
  return domain::base64UrlDecode(text);
}

Pkey fromParams(const char* type, OSSL_PARAM_BLD* bld) {
  Params params(OSSL_PARAM_BLD_to_param(bld));
  PkeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, type, nullptr));
  EVP_PKEY* key = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_PUBLIC_KEY, params.get()) != 1) {
    return nullptr;
  }
  return Pkey(key);
}

Pkey rsaKey(const json::object& jwk) {
  const auto n = field64(jwk, "n");
  const auto e = field64(jwk, "e");
  if (!n || !e || e->empty() || e->size() > 8) return nullptr;
  Bn bn(BN_bin2bn(reinterpret_cast<const unsigned char*>(n->data()), static_cast<int>(n->size()),
                  nullptr));
  Bn be(BN_bin2bn(reinterpret_cast<const unsigned char*>(e->data()), static_cast<int>(e->size()),
                  nullptr));
  ParamBld bld(OSSL_PARAM_BLD_new());
  if (!bn || !be || !bld ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, bn.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, be.get()) != 1) {
    return nullptr;
  }
  Pkey key = fromParams("RSA", bld.get());
  // At least 2048 bits, and an odd public exponent of at least 3.
  if (!key || EVP_PKEY_get_bits(key.get()) < 2048 || !BN_is_odd(be.get()) ||
      BN_cmp(be.get(), BN_value_one()) <= 0) {
    return nullptr;
  }
  return key;
}

Pkey ecKey(const json::object& jwk) {
  const auto x = field64(jwk, "x");
  const auto y = field64(jwk, "y");
  if (stringField(jwk, "crv") != "P-256" || !x || !y || x->size() != 32 || y->size() != 32) {
    return nullptr;
  }
  std::string point = "\x04" + *x + *y;
  ParamBld bld(OSSL_PARAM_BLD_new());
  char group[] = "prime256v1";
  if (!bld ||
      OSSL_PARAM_BLD_push_utf8_string(bld.get(), OSSL_PKEY_PARAM_GROUP_NAME, group, 0) != 1 ||
      OSSL_PARAM_BLD_push_octet_string(bld.get(), OSSL_PKEY_PARAM_PUB_KEY, point.data(),
                                       point.size()) != 1) {
    return nullptr;
  }
  return fromParams("EC", bld.get());
}

// The key of the JWKS that `header` names: by kid when it has one, else the only key of the
// algorithm's type. A key whose "use" is not "sig" or whose "alg" differs is never used.
Pkey selectKey(const json::object& header, const std::string& alg, std::string_view jwks) {
  auto set = parseObject(jwks);
  if (!set) return nullptr;
  const auto* keys = set->if_contains("keys");
  if (keys == nullptr || !keys->is_array()) return nullptr;
  const std::string kid = stringField(header, "kid");
  const std::string kty = alg == "ES256" ? "EC" : "RSA";
  const json::object* chosen = nullptr;
  int candidates = 0;
  for (const auto& k : keys->get_array()) {
    if (!k.is_object()) continue;
    const auto& jwk = k.get_object();
    if (stringField(jwk, "kty") != kty) continue;
    const std::string use = stringField(jwk, "use");
    const std::string keyAlg = stringField(jwk, "alg");
    if ((!use.empty() && use != "sig") || (!keyAlg.empty() && keyAlg != alg)) continue;
    if (!kid.empty() && stringField(jwk, "kid") != kid) continue;
    chosen = &jwk;
    ++candidates;
  }
  if (chosen == nullptr || (kid.empty() && candidates != 1)) return nullptr;
  return kty == "EC" ? ecKey(*chosen) : rsaKey(*chosen);
}

bool verifySignature(EVP_PKEY* key, const std::string& alg, std::string_view signingInput,
                     std::string signature) {
  if (alg == "ES256") {  // JOSE writes r || s; OpenSSL wants DER
    if (signature.size() != 64) return false;
    const auto* raw = reinterpret_cast<const unsigned char*>(signature.data());
    EcdsaSig sig(ECDSA_SIG_new());
    BIGNUM* r = BN_bin2bn(raw, 32, nullptr);
    BIGNUM* s = BN_bin2bn(raw + 32, 32, nullptr);
    if (!sig || r == nullptr || s == nullptr || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
      BN_free(r);
      BN_free(s);
      return false;
    }
    unsigned char* der = nullptr;
    const int n = i2d_ECDSA_SIG(sig.get(), &der);
    if (n <= 0) return false;
    signature.assign(reinterpret_cast<char*>(der), static_cast<std::size_t>(n));
    OPENSSL_free(der);
  }
  MdCtx md(EVP_MD_CTX_new());
  EVP_PKEY_CTX* pctx = nullptr;
  if (!md || EVP_DigestVerifyInit(md.get(), &pctx, EVP_sha256(), nullptr, key) != 1) return false;
  if (alg == "PS256" && (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) != 1 ||
                         EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) != 1)) {
    return false;
  }
  return EVP_DigestVerify(
             md.get(), reinterpret_cast<const unsigned char*>(signature.data()), signature.size(),
             reinterpret_cast<const unsigned char*>(signingInput.data()), signingInput.size()) == 1;
}

// A NumericDate (seconds since the epoch) within ±2^40 s, else nothing (no overflow later).
std::optional<std::int64_t> numberField(const json::object& o, const char* key) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 40;
  const auto* v = o.if_contains(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64() && v->get_int64() > -kLimit && v->get_int64() < kLimit) return v->get_int64();
  if (v->is_uint64() && v->get_uint64() < static_cast<std::uint64_t>(kLimit)) {
    return static_cast<std::int64_t>(v->get_uint64());
  }
  if (v->is_double() && std::isfinite(v->get_double()) &&
      std::fabs(v->get_double()) < static_cast<double>(kLimit)) {
    return static_cast<std::int64_t>(v->get_double());
  }
  return std::nullopt;
}

}  // namespace

domain::Result<IdToken> verifyIdToken(std::string_view token, std::string_view jwks,
                                      const IdTokenExpectations& expected) {
  const auto dot1 = token.find('.');
  const auto dot2 = dot1 == std::string_view::npos ? dot1 : token.find('.', dot1 + 1);
  if (dot2 == std::string_view::npos || token.find('.', dot2 + 1) != std::string_view::npos) {
    return invalid("it is not a signed JWT (three parts)");
  }
  const auto headerText = domain::base64UrlDecode(token.substr(0, dot1));
  const auto payloadText = domain::base64UrlDecode(token.substr(dot1 + 1, dot2 - dot1 - 1));
  const auto signature = domain::base64UrlDecode(token.substr(dot2 + 1));
  if (!headerText || !payloadText || !signature) return invalid("it is not base64url");
  const auto header = parseObject(*headerText);
  auto payload = parseObject(*payloadText);
  if (!header || !payload) return invalid("its header or claims are not JSON objects");

  if (header->contains("crit")) {  // RFC 7515 4.1.11: no extension is understood here
    return invalid("its header names critical extensions");
  }
  const std::string alg = stringField(*header, "alg");
  if (alg != "RS256" && alg != "PS256" && alg != "ES256") {
    return invalid("its algorithm '" + alg.substr(0, 20) + "' is not RS256, PS256 or ES256");
  }
  const Pkey key = selectKey(*header, alg, jwks);
  if (!key) return invalid("no key of the provider's JWKS matches its header");
  if (!verifySignature(key.get(), alg, token.substr(0, dot2), *signature)) {
    return invalid("its signature does not verify with the provider's key");
  }

  if (stringField(*payload, "iss") != expected.issuer) return invalid("it names another issuer");
  bool forUs = false;
  const auto* aud = payload->if_contains("aud");
  std::size_t audiences = 0;
  if (aud != nullptr && aud->is_string()) {
    forUs = aud->get_string() == expected.client_id;
    audiences = 1;
  } else if (aud != nullptr && aud->is_array()) {
    for (const auto& a : aud->get_array()) {
      forUs = forUs || (a.is_string() && a.get_string() == expected.client_id);
      ++audiences;
    }
  }
  if (!forUs) return invalid("it was issued for another client");
  const std::string azp = stringField(*payload, "azp");
  if ((audiences > 1 || !azp.empty()) && azp != expected.client_id) {
    return invalid("it was issued for another client (azp)");
  }
  const std::int64_t now = domain::unixSeconds(expected.now);
  const std::int64_t leeway = expected.leeway.count();
  const auto exp = numberField(*payload, "exp");
  if (!exp || *exp <= now - leeway) return invalid("it has expired");
  const auto iat = numberField(*payload, "iat");
  if (!iat || *iat > now + leeway) return invalid("it was issued in the future");
  if (payload->contains("nbf")) {
    const auto nbf = numberField(*payload, "nbf");
    if (!nbf || *nbf > now + leeway) return invalid("it is not valid yet");
  }
  if (expected.nonce.empty() || stringField(*payload, "nonce") != expected.nonce) {
    return invalid("its nonce is not the one of this login");
  }
  IdToken out;
  out.subject = stringField(*payload, "sub");
  if (out.subject.empty()) return invalid("it names no subject");
  for (const auto& [name, value] : *payload) {
    std::vector<std::string> values;
    if (value.is_string()) {
      values.emplace_back(value.get_string());
    } else if (value.is_bool()) {  // email_verified and the like
      values.emplace_back(value.get_bool() ? "true" : "false");
    } else if (value.is_array()) {
      for (const auto& v : value.get_array()) {
        if (v.is_string()) values.emplace_back(v.get_string());
      }
    } else {
      continue;
    }
    out.claims.emplace(std::string(name), std::move(values));
  }
  return out;
}

}  // namespace certsteward::adapters::oidc
