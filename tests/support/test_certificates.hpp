// A throw-away CA and a leaf it signed (OpenSSL), for tests that need issued material without an
// ACME CA: PEM strings of the leaf, the CA (as the chain) and the leaf's private key.
#pragma once

#include <openssl/bio.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <stdexcept>
#include <string>

namespace certsteward::testing {

struct TestMaterial {
  std::string certificate_pem;
  std::string chain_pem;
  std::string private_key_pem;
};

namespace detail {

inline EVP_PKEY* makeEcKey() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  if (key == nullptr) throw std::runtime_error("EVP_EC_gen failed");
  return key;
}

inline std::string bioText(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  std::string out(data, static_cast<std::size_t>(n));
  BIO_free(bio);
  return out;
}

inline std::string certPem(X509* cert) {
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_X509(bio, cert);
  return bioText(bio);
}

inline X509* makeCert(const std::string& cn, EVP_PKEY* subjectKey, X509* issuer,
                      EVP_PKEY* issuerKey, long serial, bool ca, std::string san = {}) {
  X509* cert = X509_new();
  X509_set_version(cert, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(cert), serial);
  X509_gmtime_adj(X509_getm_notBefore(cert), -60);
  X509_gmtime_adj(X509_getm_notAfter(cert), 90L * 24 * 3600);
  X509_set_pubkey(cert, subjectKey);
  X509_NAME* name = X509_get_subject_name(cert);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(cn.c_str()), -1, -1, 0);
  X509_set_issuer_name(cert, issuer != nullptr ? X509_get_subject_name(issuer) : name);
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer != nullptr ? issuer : cert, cert, nullptr, nullptr, 0);
  X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, NID_basic_constraints,
                                            ca ? "critical,CA:TRUE" : "CA:FALSE");
  X509_add_ext(cert, ext, -1);
  X509_EXTENSION_free(ext);
  if (!ca) {
    if (san.empty()) san = "DNS:" + cn;
    ext = X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_alt_name, san.c_str());
    X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
  }
  X509_sign(cert, issuerKey, EVP_sha256());
  return cert;
}

}  // namespace detail

// `san`: the subjectAltName value ("DNS:a,IP:127.0.0.1"); default "DNS:<commonName>".
// `serial`: the leaf's serial number.
inline TestMaterial makeTestMaterial(const std::string& commonName, const std::string& san = {},
                                     long serial = 2) {
  EVP_PKEY* caKey = detail::makeEcKey();
  EVP_PKEY* leafKey = detail::makeEcKey();
  X509* ca = detail::makeCert("CertSteward Test CA", caKey, nullptr, caKey, 1, true);
  X509* leaf = detail::makeCert(commonName, leafKey, ca, caKey, serial, false, san);
  TestMaterial m{detail::certPem(leaf), detail::certPem(ca), {}};
  BIO* bio = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(bio, leafKey, nullptr, nullptr, 0, nullptr, nullptr);
  m.private_key_pem = detail::bioText(bio);
  X509_free(leaf);
  X509_free(ca);
  EVP_PKEY_free(leafKey);
  EVP_PKEY_free(caKey);
  return m;
}

}  // namespace certsteward::testing
