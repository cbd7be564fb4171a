// The listener's TLS (issue 25 item 12, the first piece): one long-lived OpenSSL server context
// with Mozilla's "intermediate" profile — TLS 1.2 and 1.3 only; ECDHE/DHE with AES-GCM or
// ChaCha20-Poly1305 for 1.2; X25519, P-256, P-384; no compression, no renegotiation — whose
// certificate is chosen per handshake (a certificate callback) from a bundle that reload()
// swaps: a renewed certificate is served to the next handshake, connections already open keep
// theirs, nothing restarts. TlsStream is one connection's TLS over memory buffers: the HTTP
// server reads and writes the socket itself and passes the bytes through it.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <certsteward/domain/result.hpp>

namespace certsteward::adapters::http {

class TlsContext {
 public:
  // A context serving `chainPem` (the leaf first, then its chain) with `keyPem`.
  // invalid_argument when either cannot be read or the key does not match the leaf.
  static domain::Result<std::unique_ptr<TlsContext>> create(const std::string& chainPem,
                                                            const std::string& keyPem);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  // Serves `chainPem`/`keyPem` from the next handshake on. On any error the certificate served
  // so far stays (invalid_argument, nothing changed).
  domain::Status reload(const std::string& chainPem, const std::string& keyPem);
  // The serial of the leaf served now (upper-case hex).
  std::string servedSerial() const;
  // The SSL_CTX*, for the connections of the listener.
  void* native() const { return ctx_; }

  struct Bundle;  // the parsed leaf, chain and key (tls_context.cpp)
  std::shared_ptr<const Bundle> current() const;

 private:
  TlsContext() = default;
  void* ctx_ = nullptr;
  mutable std::mutex mu_;
  std::shared_ptr<const Bundle> bundle_;
};

// The server side of one TLS connection, its records carried in memory: receive() takes what
// the socket read, seal() makes what the socket must write. Not thread-safe: one thread at a
// time (the connection's owner).
class TlsStream {
 public:
  explicit TlsStream(const TlsContext& context);
  ~TlsStream();
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  enum class Received {
    ok,          // the plaintext so far is in `plain`, what must be sent back in `wire`
    failed,      // the handshake or a record failed: send `wire` (an alert), then close
    plain_http,  // the first bytes are a plain HTTP request, not a TLS handshake
    closed,      // the peer sent close_notify: nothing more will come
  };
  // Takes bytes read from the socket. Appends the plaintext they complete to `plain`, and the
  // bytes the peer must get (handshake messages, session tickets, alerts) to `wire`.
  Received receive(const char* data, std::size_t size, std::string& plain, std::string& wire);
  // Encrypts `plain` into records appended to `wire`; with `close`, a close_notify after them.
  // False when the connection cannot carry it (not established, or failed).
  bool seal(std::string_view plain, std::string& wire, bool close = false);
  // The handshake is done.
  bool established() const { return established_; }
  // Why the last receive() failed (OpenSSL's reason, no secret), for the server log.
  const std::string& failure() const { return failure_; }

 private:
  void drain(std::string& wire);
  void* ssl_ = nullptr;
  void* in_ = nullptr;   // BIO: socket bytes for OpenSSL
  void* out_ = nullptr;  // BIO: OpenSSL's bytes for the socket
  bool first_ = true;
  bool established_ = false;
  bool closed_ = false;
  std::string failure_;
};

}  // namespace certsteward::adapters::http
