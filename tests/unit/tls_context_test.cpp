// The listener's TLS context, handshaking in memory with OpenSSL clients: TLS 1.2 and 1.3 only,
// no weak TLS 1.2 cipher, the certificate swapped for the next handshake by a reload (a handshake
// made before keeps its certificate), and a reload that cannot be used changes nothing.
#include <doctest/doctest.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>
#include <string>

#include "adapters/http/tls_context.hpp"
#include "support/test_certificates.hpp"

using certsteward::adapters::http::TlsContext;

namespace {

struct Outcome {
  bool ok = false;
  std::string served;  // the leaf the client received, PEM
  std::string version;
  std::string cipher;
};

std::string pemOf(X509* cert) {
  std::unique_ptr<BIO, decltype(&BIO_free)> out(BIO_new(BIO_s_mem()), BIO_free);
  PEM_write_bio_X509(out.get(), cert);
  char* data = nullptr;
  const long n = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<std::size_t>(n));
}

// One handshake between a client configured by `setup` and a server connection of `server`,
// bytes carried through memory BIOs (bounded: 200 rounds).
template <class Setup>
Outcome handshake(const TlsContext& server, Setup setup) {
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> clientCtx(SSL_CTX_new(TLS_client_method()),
                                                              SSL_CTX_free);
  setup(clientCtx.get());
  std::unique_ptr<SSL, decltype(&SSL_free)> client(SSL_new(clientCtx.get()), SSL_free);
  std::unique_ptr<SSL, decltype(&SSL_free)> srv(SSL_new(static_cast<SSL_CTX*>(server.native())),
                                                SSL_free);
  BIO* toServer = BIO_new(BIO_s_mem());
  BIO* toClient = BIO_new(BIO_s_mem());
  BIO_up_ref(toServer);
  BIO_up_ref(toClient);
  SSL_set_bio(client.get(), toClient, toServer);  // reads toClient, writes toServer
  SSL_set_bio(srv.get(), toServer, toClient);
  SSL_set_connect_state(client.get());
  SSL_set_accept_state(srv.get());
  SSL_set_tlsext_host_name(client.get(), "localhost");
  bool clientDone = false;
  bool serverDone = false;
  // One step of one side; false when its handshake failed.
  const auto step = [](SSL* ssl, bool& done) {
    if (done) return true;
    const int rc = SSL_do_handshake(ssl);
    done = rc == 1;
    return done || SSL_get_error(ssl, rc) == SSL_ERROR_WANT_READ;
  };
  for (int round = 0; round < 200 && !(clientDone && serverDone); ++round) {
    if (!step(client.get(), clientDone) || !step(srv.get(), serverDone)) break;
  }
  ERR_clear_error();
  Outcome out;
  out.ok = clientDone && serverDone;
  if (out.ok) {
    std::unique_ptr<X509, decltype(&X509_free)> leaf(SSL_get1_peer_certificate(client.get()),
                                                     X509_free);
    if (leaf) out.served = pemOf(leaf.get());
    out.version = SSL_get_version(client.get());
    out.cipher = SSL_get_cipher_name(client.get());
  }
  return out;
}

const auto anyClient = [](SSL_CTX*) {};

}  // namespace

TEST_CASE("tls context: TLS 1.2 and 1.3 with the intermediate ciphers, nothing older or weaker") {
  const auto m = certsteward::testing::makeTestMaterial("localhost");
  auto ctx = TlsContext::create(m.certificate_pem + m.chain_pem, m.private_key_pem);
  REQUIRE_MESSAGE(ctx.ok(), ctx.error().message);
  const auto modern = handshake(**ctx, anyClient);
  REQUIRE(modern.ok);
  CHECK(modern.version == "TLSv1.3");
  CHECK(modern.served == m.certificate_pem);
  const auto tls12 =
      handshake(**ctx, [](SSL_CTX* c) { SSL_CTX_set_max_proto_version(c, TLS1_2_VERSION); });
  REQUIRE(tls12.ok);
  CHECK(tls12.version == "TLSv1.2");
  CHECK(tls12.cipher == "ECDHE-ECDSA-AES256-GCM-SHA384");
  // TLS 1.1 and 1.0 are refused, whatever the client offers.
  for (const int version : {TLS1_1_VERSION, TLS1_VERSION}) {
    CAPTURE(version);
    CHECK_FALSE(handshake(**ctx, [version](SSL_CTX* c) {
                  SSL_CTX_set_security_level(c, 0);
                  SSL_CTX_set_min_proto_version(c, version);
                  SSL_CTX_set_max_proto_version(c, version);
                }).ok);
  }
  // A client that offers only CBC or SHA-1 suites in TLS 1.2 finds nothing to agree on.
  for (const char* weak :
       {"ECDHE-ECDSA-AES128-SHA", "ECDHE-ECDSA-AES256-SHA384", "ECDHE-ECDSA-AES128-SHA256"}) {
    CAPTURE(weak);
    CHECK_FALSE(handshake(**ctx, [weak](SSL_CTX* c) {
                  SSL_CTX_set_max_proto_version(c, TLS1_2_VERSION);
                  SSL_CTX_set_cipher_list(c, weak);
                }).ok);
  }
}

TEST_CASE("tls context: a reload is served from the next handshake, a broken one changes nothing") {
  const auto first = certsteward::testing::makeTestMaterial("localhost", {}, 21);
  const auto second = certsteward::testing::makeTestMaterial("localhost", {}, 22);
  auto ctx = TlsContext::create(first.certificate_pem + first.chain_pem, first.private_key_pem);
  REQUIRE(ctx.ok());
  CHECK(handshake(**ctx, anyClient).served == first.certificate_pem);
  CHECK((*ctx)->servedSerial() == "15");
  REQUIRE((*ctx)->reload(second.certificate_pem + second.chain_pem, second.private_key_pem).ok());
  CHECK(handshake(**ctx, anyClient).served == second.certificate_pem);
  CHECK((*ctx)->servedSerial() == "16");
  // A key of another certificate, or no certificate at all: refused, the second stays.
  const auto mismatch = (*ctx)->reload(first.certificate_pem, second.private_key_pem);
  REQUIRE_FALSE(mismatch.ok());
  CHECK(mismatch.error().message.find("does not belong") != std::string::npos);
  CHECK_FALSE((*ctx)->reload("not PEM", second.private_key_pem).ok());
  CHECK_FALSE((*ctx)->reload(second.certificate_pem, "not a key").ok());
  CHECK(handshake(**ctx, anyClient).served == second.certificate_pem);
  CHECK_FALSE(TlsContext::create("", first.private_key_pem).ok());
}
