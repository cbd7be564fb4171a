// OpenSSL server context with a swappable certificate bundle.
#include "adapters/http/tls_context.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <utility>

namespace certsteward::adapters::http {

using domain::ErrorCode;
using domain::makeError;

namespace {

// Mozilla's "intermediate" configuration (TLS 1.2 ciphers; TLS 1.3 suites are OpenSSL's three).
constexpr const char* kCiphers12 =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:"
    "DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:DHE-RSA-CHACHA20-POLY1305";
constexpr const char* kSuites13 =
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";
constexpr const char* kGroups = "X25519:P-256:P-384";

domain::Error refused(const std::string& why) {
  ERR_clear_error();
  return makeError(ErrorCode::invalid_argument, "TLS certificate: " + why);
}

}  // namespace

struct TlsContext::Bundle {
  X509* leaf = nullptr;
  STACK_OF(X509) * chain = nullptr;
  EVP_PKEY* key = nullptr;
  ~Bundle() {
    X509_free(leaf);
    sk_X509_pop_free(chain, X509_free);
    EVP_PKEY_free(key);
  }
};

namespace {

domain::Result<std::shared_ptr<const TlsContext::Bundle>> parse(const std::string& chainPem,
                                                                const std::string& keyPem) {
  auto bundle = std::make_shared<TlsContext::Bundle>();
  std::unique_ptr<BIO, decltype(&BIO_free)> certs(
      BIO_new_mem_buf(chainPem.data(), static_cast<int>(chainPem.size())), BIO_free);
  if (!certs) return refused("out of memory");
  bundle->leaf = PEM_read_bio_X509(certs.get(), nullptr, nullptr, nullptr);
  if (bundle->leaf == nullptr) return refused("the certificate file holds no certificate");
  bundle->chain = sk_X509_new_null();
  while (X509* next = PEM_read_bio_X509(certs.get(), nullptr, nullptr, nullptr)) {
    if (sk_X509_push(bundle->chain, next) == 0) {
      X509_free(next);
      return refused("out of memory");
    }
  }
  ERR_clear_error();  // the end of the file reads as an error
  std::unique_ptr<BIO, decltype(&BIO_free)> key(
      BIO_new_mem_buf(keyPem.data(), static_cast<int>(keyPem.size())), BIO_free);
  if (!key) return refused("out of memory");
  bundle->key = PEM_read_bio_PrivateKey(key.get(), nullptr, nullptr, nullptr);
  if (bundle->key == nullptr) return refused("the key file holds no private key");
  if (X509_check_private_key(bundle->leaf, bundle->key) != 1) {
    return refused("the private key does not belong to the certificate");
  }
  return std::shared_ptr<const TlsContext::Bundle>(std::move(bundle));
}

// Per handshake: the bundle served now.
int chooseCertificate(SSL* ssl, void* arg) {
  const auto bundle = static_cast<const TlsContext*>(arg)->current();
  if (!bundle) return 0;
  return SSL_use_cert_and_key(ssl, bundle->leaf, bundle->key, bundle->chain, 1) == 1 ? 1 : 0;
}

}  // namespace

domain::Result<std::unique_ptr<TlsContext>> TlsContext::create(const std::string& chainPem,
                                                               const std::string& keyPem) {
  std::unique_ptr<TlsContext> out(new TlsContext());
  if (auto loaded = out->reload(chainPem, keyPem); !loaded) return loaded.error();
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return refused("no TLS context");
  out->ctx_ = ctx;
  const bool configured = SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) == 1 &&
                          SSL_CTX_set_cipher_list(ctx, kCiphers12) == 1 &&
                          SSL_CTX_set_ciphersuites(ctx, kSuites13) == 1 &&
                          SSL_CTX_set1_groups_list(ctx, kGroups) == 1 &&
                          SSL_CTX_set_dh_auto(ctx, 1) == 1;
  if (!configured) return refused("the TLS profile could not be set");
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_cert_cb(ctx, chooseCertificate, out.get());
  return out;
}

TlsContext::~TlsContext() {
  SSL_CTX_free(static_cast<SSL_CTX*>(ctx_));
}

domain::Status TlsContext::reload(const std::string& chainPem, const std::string& keyPem) {
  auto parsed = parse(chainPem, keyPem);
  if (!parsed) return parsed.error();
  std::lock_guard lock(mu_);
  bundle_ = std::move(*parsed);
  return {};
}

std::shared_ptr<const TlsContext::Bundle> TlsContext::current() const {
  std::lock_guard lock(mu_);
  return bundle_;
}

std::string TlsContext::servedSerial() const {
  const auto bundle = current();
  if (!bundle) return {};
  std::unique_ptr<BIGNUM, decltype(&BN_free)> bn(
      ASN1_INTEGER_to_BN(X509_get0_serialNumber(bundle->leaf), nullptr), BN_free);
  if (!bn) return {};
  char* hex = BN_bn2hex(bn.get());
  std::string out = hex != nullptr ? hex : "";
  OPENSSL_free(hex);
  return out;
}

}  // namespace certsteward::adapters::http
