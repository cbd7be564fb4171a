// A signing key for tests that play an OpenID provider: RSA (RS256, PS256) or EC P-256 (ES256),
// its public JWK, and JWS signatures as JOSE writes them (ES256 as r || s).
#pragma once

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/rsa.h>

#include <boost/json.hpp>

#include <stdexcept>
#include <string>

#include <certsteward/domain/encoding.hpp>

namespace certsteward::testing {

inline std::string bnBytes(const BIGNUM* bn, int size = 0) {
  std::string out(static_cast<std::size_t>(size > 0 ? size : BN_num_bytes(bn)), '\0');
  BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(out.size()));
  return out;
}

struct TestSigningKey {
  EVP_PKEY* pkey = nullptr;
  std::string alg;
  std::string kid;
  explicit TestSigningKey(std::string algorithm, std::string id, unsigned rsaBits = 2048)
      : alg(std::move(algorithm)), kid(std::move(id)) {
    pkey = alg == "ES256" ? EVP_EC_gen("P-256") : EVP_RSA_gen(rsaBits);
    if (pkey == nullptr) throw std::runtime_error("key generation failed");
  }
  ~TestSigningKey() { EVP_PKEY_free(pkey); }
  TestSigningKey(const TestSigningKey&) = delete;
  TestSigningKey& operator=(const TestSigningKey&) = delete;

  boost::json::object jwk() const {
    boost::json::object k{{"kid", kid}, {"use", "sig"}, {"alg", alg}};
    if (alg == "ES256") {
      BIGNUM* x = nullptr;
      BIGNUM* y = nullptr;
      EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_X, &x);
      EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_EC_PUB_Y, &y);
      k["kty"] = "EC";
      k["crv"] = "P-256";
      k["x"] = domain::base64UrlEncode(bnBytes(x, 32));
      k["y"] = domain::base64UrlEncode(bnBytes(y, 32));
      BN_free(x);
      BN_free(y);
    } else {
      BIGNUM* n = nullptr;
      BIGNUM* e = nullptr;
      EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_N, &n);
      EVP_PKEY_get_bn_param(pkey, OSSL_PKEY_PARAM_RSA_E, &e);
      k["kty"] = "RSA";
      k["n"] = domain::base64UrlEncode(bnBytes(n));
      k["e"] = domain::base64UrlEncode(bnBytes(e));
      BN_free(n);
      BN_free(e);
    }
    return k;
  }

  std::string sign(const std::string& input) const {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    EVP_PKEY_CTX* pctx = nullptr;
    EVP_DigestSignInit(md, &pctx, EVP_sha256(), nullptr, pkey);
    if (alg == "PS256") {
      EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING);
      EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST);
    }
    std::size_t n = 0;
    EVP_DigestSign(md, nullptr, &n, reinterpret_cast<const unsigned char*>(input.data()),
                   input.size());
    std::string sig(n, '\0');
    EVP_DigestSign(md, reinterpret_cast<unsigned char*>(sig.data()), &n,
                   reinterpret_cast<const unsigned char*>(input.data()), input.size());
    sig.resize(n);
    EVP_MD_CTX_free(md);
    if (alg != "ES256") return sig;
    const auto* der = reinterpret_cast<const unsigned char*>(sig.data());
    ECDSA_SIG* ecdsa = d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(sig.size()));
    std::string raw = bnBytes(ECDSA_SIG_get0_r(ecdsa), 32) + bnBytes(ECDSA_SIG_get0_s(ecdsa), 32);
    ECDSA_SIG_free(ecdsa);
    return raw;
  }
};

// A compact JWS of `claims` with `header` (default: the key's alg and kid).
inline std::string signJwt(const TestSigningKey& key, const boost::json::object& claims,
                           boost::json::object header = {}) {
  if (header.empty()) header = {{"alg", key.alg}, {"kid", key.kid}, {"typ", "JWT"}};
  const std::string input = domain::base64UrlEncode(boost::json::serialize(header)) + "." +
                            domain::base64UrlEncode(boost::json::serialize(claims));
  return input + "." + domain::base64UrlEncode(key.sign(input));
}

}  // namespace certsteward::testing
