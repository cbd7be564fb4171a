#include <certsteward/adapters/acme/acme_crypto.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <certsteward/domain/encoding.hpp>

namespace certsteward::adapters::acme {
namespace {

using domain::base64UrlEncode;
using domain::ErrorCode;
using domain::makeError;

EVP_PKEY* pkey(const KeyPair& k) {
  return static_cast<EVP_PKEY*>(k.native());
}

domain::Error cryptoError(const std::string& what) {
  ERR_clear_error();
  return makeError(ErrorCode::internal, what);
}

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
using Bio = std::unique_ptr<BIO, BioFree>;

std::string bioText(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return n > 0 ? std::string(data, static_cast<std::size_t>(n)) : std::string();
}

std::string bnBytes(const BIGNUM* bn, int width) {
  std::string out(static_cast<std::size_t>(width > 0 ? width : BN_num_bytes(bn)), '\0');
  BN_bn2binpad(bn, reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(out.size()));
  return out;
}

std::string bnParam(EVP_PKEY* key, const char* name, int width) {
  BIGNUM* bn = nullptr;
  if (EVP_PKEY_get_bn_param(key, name, &bn) != 1) return {};
  std::string out = bnBytes(bn, width);
  BN_free(bn);
  return out;
}

int ecCoordinateBytes(EVP_PKEY* key) {
  return (EVP_PKEY_get_bits(key) + 7) / 8;
}

domain::Timestamp fromAsn1(const ASN1_TIME* t) {
  std::tm tm{};
  ASN1_TIME_to_tm(t, &tm);
  return domain::Timestamp{std::chrono::seconds{timegm(&tm)}};
}

}  // namespace

void KeyPair::Free::operator()(void* k) const {
  EVP_PKEY_free(static_cast<EVP_PKEY*>(k));
}

domain::Result<KeyPair> KeyPair::generate(domain::KeyType type) {
  EVP_PKEY* key = nullptr;
  switch (type) {
    case domain::KeyType::ecdsa_p256:
      key = EVP_EC_gen("P-256");
      break;
    case domain::KeyType::ecdsa_p384:
      key = EVP_EC_gen("P-384");
      break;
    case domain::KeyType::rsa_2048:
      key = EVP_RSA_gen(2048);
      break;
    case domain::KeyType::rsa_3072:
      key = EVP_RSA_gen(3072);
      break;
    case domain::KeyType::rsa_4096:
      key = EVP_RSA_gen(4096);
      break;
  }
  if (key == nullptr) return cryptoError("key generation failed");
  return KeyPair(key);
}

domain::Result<KeyPair> KeyPair::fromPem(std::string_view pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  EVP_PKEY* key = bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr;
  if (key == nullptr) return cryptoError("the stored key cannot be read");
  return KeyPair(key);
}

std::string KeyPair::privatePem() const {
  Bio bio(BIO_new(BIO_s_mem()));
  PEM_write_bio_PrivateKey(bio.get(), pkey(*this), nullptr, nullptr, 0, nullptr, nullptr);
  return bioText(bio.get());
}

std::string KeyPair::alg() const {
  if (EVP_PKEY_get_base_id(pkey(*this)) == EVP_PKEY_RSA) return "RS256";
  return ecCoordinateBytes(pkey(*this)) > 32 ? "ES384" : "ES256";
}

std::string KeyPair::jwk() const {
  EVP_PKEY* key = pkey(*this);
  if (EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA) {
    return R"({"e":")" + base64UrlEncode(bnParam(key, OSSL_PKEY_PARAM_RSA_E, 0)) +
           R"(","kty":"RSA","n":")" + base64UrlEncode(bnParam(key, OSSL_PKEY_PARAM_RSA_N, 0)) +
           R"("})";
  }
  const int width = ecCoordinateBytes(key);
  return std::string(R"({"crv":")") + (width > 32 ? "P-384" : "P-256") + R"(","kty":"EC","x":")" +
         base64UrlEncode(bnParam(key, OSSL_PKEY_PARAM_EC_PUB_X, width)) + R"(","y":")" +
         base64UrlEncode(bnParam(key, OSSL_PKEY_PARAM_EC_PUB_Y, width)) + R"("})";
}

std::string KeyPair::thumbprint() const {
  return base64UrlEncode(sha256(jwk()));
}

domain::Result<std::string> KeyPair::sign(std::string_view input) const {
  EVP_PKEY* key = pkey(*this);
  const bool rsa = EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA;
  const int width = rsa ? 0 : ecCoordinateBytes(key);
  const EVP_MD* md = width > 32 ? EVP_sha384() : EVP_sha256();
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  std::size_t size = 0;
  std::string der;
  const bool ok =
      ctx != nullptr && EVP_DigestSignInit(ctx, nullptr, md, nullptr, key) == 1 &&
      EVP_DigestSign(ctx, nullptr, &size, reinterpret_cast<const unsigned char*>(input.data()),
                     input.size()) == 1 &&
      (der.resize(size), true) &&
      EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(der.data()), &size,
                     reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
  EVP_MD_CTX_free(ctx);
  if (!ok) return cryptoError("signing failed");
  der.resize(size);
  if (rsa) return der;
  // ECDSA: DER SEQUENCE(r, s) -> r || s, each padded to the coordinate size (RFC 7518 3.4).
  const auto* p = reinterpret_cast<const unsigned char*>(der.data());
  ECDSA_SIG* sig = d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(der.size()));
  if (sig == nullptr) return cryptoError("signature conversion failed");
  std::string raw = bnBytes(ECDSA_SIG_get0_r(sig), width) + bnBytes(ECDSA_SIG_get0_s(sig), width);
  ECDSA_SIG_free(sig);
  return raw;
}

std::string sha256(std::string_view data) {
  std::string out(32, '\0');
  EVP_Digest(data.data(), data.size(), reinterpret_cast<unsigned char*>(out.data()), nullptr,
             EVP_sha256(), nullptr);
  return out;
}

std::string hmacSha256(std::string_view key, std::string_view data) {
  std::string out(32, '\0');
  unsigned int size = 32;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(),
       reinterpret_cast<unsigned char*>(out.data()), &size);
  return out;
}

bool isIpAddress(const std::string& name) {
  unsigned char buffer[sizeof(in6_addr)];
  return ::inet_pton(AF_INET, name.c_str(), buffer) == 1 ||
         ::inet_pton(AF_INET6, name.c_str(), buffer) == 1;
}

domain::Result<std::string> makeCsr(const KeyPair& key, const std::vector<std::string>& names) {
  if (names.empty()) return makeError(ErrorCode::invalid_argument, "a CSR needs names");
  X509_REQ* req = X509_REQ_new();
  X509_NAME* subject = X509_REQ_get_subject_name(req);
  const std::string& cn = names.front();
  // A CN longer than 64 is not allowed, and an IP address goes only into the SANs.
  bool ok = cn.size() <= 64 && !isIpAddress(cn)
                ? X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_ASC,
                                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1,
                                             -1, 0) == 1
                : true;
  std::string sans;
  for (const auto& n : names)
    sans += std::string(sans.empty() ? "" : ",") + (isIpAddress(n) ? "IP:" : "DNS:") + n;
  STACK_OF(X509_EXTENSION)* exts = sk_X509_EXTENSION_new_null();
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, nullptr, NID_subject_alt_name, sans.c_str());
  ok = ok && ext != nullptr && sk_X509_EXTENSION_push(exts, ext) > 0 &&
       X509_REQ_add_extensions(req, exts) == 1 && X509_REQ_set_pubkey(req, pkey(key)) == 1 &&
       X509_REQ_sign(req, pkey(key),
                     EVP_PKEY_get_base_id(pkey(key)) == EVP_PKEY_RSA ? EVP_sha256()
                     : ecCoordinateBytes(pkey(key)) > 32             ? EVP_sha384()
                                                                     : EVP_sha256()) > 0;
  sk_X509_EXTENSION_pop_free(exts, X509_EXTENSION_free);
  std::string der;
  if (ok) {
    const int size = i2d_X509_REQ(req, nullptr);
    der.resize(static_cast<std::size_t>(size > 0 ? size : 0));
    auto* out = reinterpret_cast<unsigned char*>(der.data());
    ok = size > 0 && i2d_X509_REQ(req, &out) == size;
  }
  X509_REQ_free(req);
  if (!ok) return cryptoError("the CSR could not be made");
  return der;
}

domain::Result<CertificateFacts> inspectCertificate(std::string_view pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  X509* cert = bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr;
  if (cert == nullptr) return cryptoError("the certificate cannot be read");
  CertificateFacts facts;
  BIGNUM* serial = ASN1_INTEGER_to_BN(X509_get0_serialNumber(cert), nullptr);
  char* hex = serial != nullptr ? BN_bn2hex(serial) : nullptr;
  if (hex != nullptr) {
    facts.serial_hex = hex;
    for (auto& c : facts.serial_hex)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  OPENSSL_free(hex);
  BN_free(serial);
  facts.not_before = fromAsn1(X509_get0_notBefore(cert));
  facts.not_after = fromAsn1(X509_get0_notAfter(cert));
  auto* sans =
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr));
  for (int i = 0; sans != nullptr && i < sk_GENERAL_NAME_num(sans); ++i) {
    const GENERAL_NAME* name = sk_GENERAL_NAME_value(sans, i);
    if (name->type == GEN_DNS) {
      const auto* s = name->d.dNSName;
      facts.dns_names.emplace_back(reinterpret_cast<const char*>(ASN1_STRING_get0_data(s)),
                                   static_cast<std::size_t>(ASN1_STRING_length(s)));
    }
  }
  GENERAL_NAMES_free(sans);
  X509_free(cert);
  return facts;
}

std::string topIssuerName(std::string_view chainPem) {
  Bio bio(BIO_new_mem_buf(chainPem.data(), static_cast<int>(chainPem.size())));
  X509* last = nullptr;
  while (bio) {
    X509* next = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
    if (next == nullptr) break;
    X509_free(last);
    last = next;
  }
  ERR_clear_error();
  if (last == nullptr) return {};
  std::string name(256, '\0');
  const int length = X509_NAME_get_text_by_NID(X509_get_issuer_name(last), NID_commonName,
                                               name.data(), static_cast<int>(name.size()));
  X509_free(last);
  name.resize(length > 0 ? static_cast<std::size_t>(length) : 0);
  return name;
}

std::pair<std::string, std::string> splitChain(std::string_view pem) {
  static constexpr std::string_view kEnd = "-----END CERTIFICATE-----";
  const auto end = pem.find(kEnd);
  if (end == std::string_view::npos) return {std::string(pem), {}};
  std::size_t cut = end + kEnd.size();
  while (cut < pem.size() && (pem[cut] == '\n' || pem[cut] == '\r'))
    ++cut;
  std::string leaf(pem.substr(0, end + kEnd.size()));
  leaf += '\n';
  return {leaf, std::string(pem.substr(cut))};
}

domain::Result<std::string> pemToDer(std::string_view pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  X509* cert = bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr;
  if (cert == nullptr) return cryptoError("the certificate cannot be read");
  const int size = i2d_X509(cert, nullptr);
  std::string der(static_cast<std::size_t>(size > 0 ? size : 0), '\0');
  auto* out = reinterpret_cast<unsigned char*>(der.data());
  i2d_X509(cert, &out);
  X509_free(cert);
  return der;
}

}  // namespace certsteward::adapters::acme
