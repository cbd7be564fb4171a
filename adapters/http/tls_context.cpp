// OpenSSL server context with a swappable certificate bundle.
#include <certsteward/adapters/http/tls_context.hpp>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <algorithm>
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
  // The server's order (the profile's), except that a client whose first choice is ChaCha20 (no
  // AES hardware) gets it. The profile itself lets the client pick; scanners such as testssl.sh
  // rate "no cipher order" as a finding, so the order is the server's.
  // No stateless session tickets: their key would live as long as the process, and every session
  // it ever sealed with it could be read with it (the profile: rotate it, or do without).
  // Resumption goes through the server's session cache instead.
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                               SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_PRIORITIZE_CHACHA |
                               SSL_OP_NO_TICKET);
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
  SSL_CTX_sess_set_cache_size(ctx, 10000);
  SSL_CTX_set_timeout(ctx, 3600);
  // An idle connection gives its record buffers back (keep-alive connections by the thousand),
  // as nginx does.
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
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

namespace {

SSL* sslOf(void* p) {
  return static_cast<SSL*>(p);
}

// OpenSSL's reason for the last failure, without anything the peer sent.
std::string lastReason() {
  const unsigned long code = ERR_peek_last_error();
  std::string out = code != 0 ? ERR_reason_error_string(code) != nullptr
                                    ? ERR_reason_error_string(code)
                                    : "unknown reason"
                              : "the connection failed";
  ERR_clear_error();
  return out;
}

}  // namespace

TlsStream::TlsStream(const TlsContext& context) {
  SSL* ssl = SSL_new(static_cast<SSL_CTX*>(context.native()));
  BIO* in = BIO_new(BIO_s_mem());
  BIO* out = BIO_new(BIO_s_mem());
  if (ssl == nullptr || in == nullptr || out == nullptr) {
    SSL_free(ssl);
    BIO_free(in);
    BIO_free(out);
    ERR_clear_error();
    closed_ = true;  // every receive() fails: the connection closes
    failure_ = "out of memory";
    return;
  }
  BIO_set_mem_eof_return(in, -1);  // empty means "wait for more", not end of file
  SSL_set_bio(ssl, in, out);       // the SSL owns both
  SSL_set_accept_state(ssl);
  ssl_ = ssl;
  in_ = in;
  out_ = out;
}

TlsStream::~TlsStream() {
  SSL_free(sslOf(ssl_));
}

void TlsStream::drain(std::string& wire) {
  BIO* out = static_cast<BIO*>(out_);
  const std::size_t pending = BIO_ctrl_pending(out);
  if (pending == 0) return;
  const std::size_t at = wire.size();
  wire.resize(at + pending);
  const int n = BIO_read(out, wire.data() + at, static_cast<int>(pending));
  wire.resize(at + static_cast<std::size_t>(std::max(n, 0)));
}

TlsStream::Received TlsStream::receive(const char* data, std::size_t size, std::string& plain,
                                       std::string& wire) {
  if (ssl_ == nullptr || closed_) return Received::failed;
  if (first_ && size > 0) {
    first_ = false;
    // A TLS connection opens with a handshake record (22); a letter is an HTTP method.
    if (data[0] >= 'A' && data[0] <= 'Z') {
      closed_ = true;
      return Received::plain_http;
    }
  }
  SSL* ssl = sslOf(ssl_);
  while (size > 0) {
    const int chunk = static_cast<int>(std::min<std::size_t>(size, 1 << 20));
    const int written = BIO_write(static_cast<BIO*>(in_), data, chunk);
    if (written <= 0) {
      failure_ = "out of memory";
      closed_ = true;
      return Received::failed;
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
  for (int guard = 0; guard < 1 << 16; ++guard) {
    if (!established_) {
      const int rc = SSL_do_handshake(ssl);
      if (rc != 1) {
        const int error = SSL_get_error(ssl, rc);
        drain(wire);
        if (error == SSL_ERROR_WANT_READ) return Received::ok;
        failure_ = lastReason();
        closed_ = true;
        return Received::failed;
      }
      established_ = true;
    }
    char buffer[16384];
    const int n = SSL_read(ssl, buffer, sizeof buffer);
    if (n > 0) {
      plain.append(buffer, static_cast<std::size_t>(n));
      continue;
    }
    const int error = SSL_get_error(ssl, n);
    drain(wire);  // key updates, session tickets, alerts
    if (error == SSL_ERROR_WANT_READ) return Received::ok;
    closed_ = true;
    if (error == SSL_ERROR_ZERO_RETURN) return Received::closed;
    failure_ = lastReason();
    return Received::failed;
  }
  drain(wire);
  return Received::ok;
}

bool TlsStream::seal(std::string_view plain, std::string& wire, bool close) {
  if (ssl_ == nullptr || !established_) return false;
  SSL* ssl = sslOf(ssl_);
  // A record's worth at a time, drained at once: the BIO's buffer (which OpenSSL never shrinks)
  // stays about one record large however long the answers.
  while (!plain.empty()) {
    const int chunk = static_cast<int>(std::min<std::size_t>(plain.size(), 16384));
    const int n = SSL_write(ssl, plain.data(), chunk);
    if (n <= 0) {
      ERR_clear_error();
      drain(wire);
      return false;
    }
    plain.remove_prefix(static_cast<std::size_t>(n));
    drain(wire);
  }
  if (close && (SSL_get_shutdown(ssl) & SSL_SENT_SHUTDOWN) == 0) {
    SSL_shutdown(ssl);  // close_notify; the peer's own is not awaited
    ERR_clear_error();
  }
  drain(wire);
  return true;
}

}  // namespace certsteward::adapters::http
