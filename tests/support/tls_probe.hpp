// What a TLS server serves, asked the way `openssl s_client` would: the leaf's PEM and serial,
// with a bounded connect and handshake. For tests checking a deployment from outside.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <string>

namespace certsteward::testing {

struct ServedLeaf {
  std::string pem;     // empty when the handshake failed
  std::string serial;  // upper-case hex, as openssl prints it
};

inline ServedLeaf servedLeaf(int port, const std::string& serverName = "localhost") {
  ServedLeaf out;
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return out;
  }
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  SSL* ssl = SSL_new(ctx);
  SSL_set_fd(ssl, fd);
  SSL_set_tlsext_host_name(ssl, serverName.c_str());
  if (SSL_connect(ssl) == 1) {
    if (X509* leaf = SSL_get1_peer_certificate(ssl)) {
      BIO* bio = BIO_new(BIO_s_mem());
      PEM_write_bio_X509(bio, leaf);
      char* data = nullptr;
      const long n = BIO_get_mem_data(bio, &data);
      out.pem.assign(data, static_cast<std::size_t>(n));
      BIO_free(bio);
      BIGNUM* bn = ASN1_INTEGER_to_BN(X509_get0_serialNumber(leaf), nullptr);
      char* hex = BN_bn2hex(bn);
      out.serial = hex;
      OPENSSL_free(hex);
      BN_free(bn);
      X509_free(leaf);
    }
    SSL_shutdown(ssl);
  }
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  ::close(fd);
  return out;
}

// The leaf served once it is `expectedPem`, asked again for up to 10 s: a reloaded nginx lets
// its old worker finish, so a connection can still meet the previous certificate for a moment.
// Returns the last leaf seen (compare it with the expectation).
inline std::string servedLeafSoon(int port, const std::string& expectedPem,
                                  const std::string& serverName = "localhost") {
  std::string pem;
  for (int i = 0; i < 100; ++i) {
    pem = servedLeaf(port, serverName).pem;
    if (pem == expectedPem) break;
    ::usleep(100 * 1000);
  }
  return pem;
}

}  // namespace certsteward::testing
