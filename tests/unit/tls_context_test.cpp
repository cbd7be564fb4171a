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

#include <certsteward/adapters/http/tls_context.hpp>
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
  CHECK(tls12.cipher == "ECDHE-ECDSA-AES128-GCM-SHA256");  // the server's order
  // A client that prefers ChaCha20 (no AES hardware) gets it.
  const auto chacha = handshake(**ctx, [](SSL_CTX* c) {
    SSL_CTX_set_max_proto_version(c, TLS1_2_VERSION);
    SSL_CTX_set_cipher_list(c, "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES128-GCM-SHA256");
  });
  REQUIRE(chacha.ok);
  CHECK(chacha.cipher == "ECDHE-ECDSA-CHACHA20-POLY1305");
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

namespace {

using certsteward::adapters::http::TlsStream;

// An OpenSSL client talking to a TlsStream through strings: what the client writes is given to
// receive(), what the stream answers is fed back to the client (bounded: 50 rounds).
struct Pair {
  explicit Pair(const TlsContext& server) : stream(server) {
    ctx.reset(SSL_CTX_new(TLS_client_method()));
    client.reset(SSL_new(ctx.get()));
    toServer = BIO_new(BIO_s_mem());
    toClient = BIO_new(BIO_s_mem());
    BIO_set_mem_eof_return(toClient, -1);
    SSL_set_bio(client.get(), toClient, toServer);
    SSL_set_connect_state(client.get());
  }
  // Moves bytes both ways until nothing moves; the server's plaintext lands in `plain`.
  TlsStream::Received pump() {
    auto last = TlsStream::Received::ok;
    for (int round = 0; round < 50; ++round) {
      SSL_do_handshake(client.get());
      std::string bytes(BIO_ctrl_pending(toServer), '\0');
      if (!bytes.empty()) BIO_read(toServer, bytes.data(), static_cast<int>(bytes.size()));
      std::string wire;
      if (!bytes.empty()) last = stream.receive(bytes.data(), bytes.size(), plain, wire);
      toClientBytes(wire);
      if (bytes.empty() && wire.empty()) break;
      if (last != TlsStream::Received::ok) break;
    }
    ERR_clear_error();
    return last;
  }
  void toClientBytes(const std::string& wire) {
    if (!wire.empty()) BIO_write(toClient, wire.data(), static_cast<int>(wire.size()));
  }
  // What the client can read now (and whether it met close_notify).
  std::string clientReads(bool* closed = nullptr) {
    std::string out;
    char buffer[4096];
    for (int i = 0; i < 10000; ++i) {
      const int n = SSL_read(client.get(), buffer, sizeof buffer);
      if (n <= 0) {
        if (closed != nullptr) *closed = SSL_get_error(client.get(), n) == SSL_ERROR_ZERO_RETURN;
        break;
      }
      out.append(buffer, static_cast<std::size_t>(n));
    }
    ERR_clear_error();
    return out;
  }
  TlsStream stream;
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx{nullptr, SSL_CTX_free};
  std::unique_ptr<SSL, decltype(&SSL_free)> client{nullptr, SSL_free};
  BIO* toServer = nullptr;
  BIO* toClient = nullptr;
  std::string plain;
};

}  // namespace

TEST_CASE("tls stream: handshake, requests in, sealed answers out, close_notify at the end") {
  const auto m = certsteward::testing::makeTestMaterial("localhost");
  auto ctx = TlsContext::create(m.certificate_pem + m.chain_pem, m.private_key_pem);
  REQUIRE(ctx.ok());
  Pair p(**ctx);
  CHECK_FALSE(p.stream.established());
  std::string early;
  CHECK_FALSE(p.stream.seal("too early", early));  // nothing leaves before the handshake
  CHECK(early.empty());
  REQUIRE(p.pump() == TlsStream::Received::ok);
  CHECK(p.stream.established());
  CHECK(SSL_is_init_finished(p.client.get()) == 1);

  // Two requests written at once, one of them larger than a record: all of it, in order.
  const std::string big(40000, 'x');
  const std::string requests = "GET /a HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\n\r\n" + big;
  REQUIRE(SSL_write(p.client.get(), requests.data(), static_cast<int>(requests.size())) ==
          static_cast<int>(requests.size()));
  REQUIRE(p.pump() == TlsStream::Received::ok);
  CHECK(p.plain == requests);

  // Answers sealed, the last one with close_notify: the client reads them and the close.
  std::string wire;
  REQUIRE(p.stream.seal("HTTP/1.1 200 OK\r\n\r\n", wire));
  REQUIRE(p.stream.seal(big, wire, true));
  CHECK(wire.find("HTTP/1.1") == std::string::npos);  // nothing in clear
  p.toClientBytes(wire);
  bool closed = false;
  CHECK(p.clientReads(&closed) == "HTTP/1.1 200 OK\r\n\r\n" + big);
  CHECK(closed);
}

TEST_CASE("tls stream: plain HTTP, garbage and a client's close are told apart") {
  const auto m = certsteward::testing::makeTestMaterial("localhost");
  auto ctx = TlsContext::create(m.certificate_pem + m.chain_pem, m.private_key_pem);
  REQUIRE(ctx.ok());
  {
    TlsStream s(**ctx);
    std::string plain;
    std::string wire;
    const std::string request = "GET / HTTP/1.1\r\n\r\n";
    CHECK(s.receive(request.data(), request.size(), plain, wire) ==
          TlsStream::Received::plain_http);
    CHECK(plain.empty());
    // Nothing more is taken from it.
    CHECK(s.receive("\x16\x03\x01", 3, plain, wire) == TlsStream::Received::failed);
  }
  {
    TlsStream s(**ctx);
    std::string plain;
    std::string wire;
    const std::string garbage("\x00\xff\x00\xff\x00\xff\x00\xff", 8);
    CHECK(s.receive(garbage.data(), garbage.size(), plain, wire) == TlsStream::Received::failed);
    CHECK_FALSE(s.failure().empty());
    CHECK(plain.empty());
  }
  {
    // A partial record waits for the rest.
    TlsStream s(**ctx);
    std::string plain;
    std::string wire;
    CHECK(s.receive("\x16\x03\x01", 3, plain, wire) == TlsStream::Received::ok);
    CHECK(wire.empty());
  }
  {
    Pair p(**ctx);
    REQUIRE(p.pump() == TlsStream::Received::ok);
    const std::string last = "GET /last HTTP/1.1\r\n\r\n";
    REQUIRE(SSL_write(p.client.get(), last.data(), static_cast<int>(last.size())) > 0);
    SSL_shutdown(p.client.get());  // close_notify right after a last request
    CHECK(p.pump() == TlsStream::Received::closed);
    CHECK(p.plain == last);  // what came before the close is delivered
  }
}
