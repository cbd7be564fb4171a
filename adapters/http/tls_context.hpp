// The listener's TLS (issue 25 item 12, the first piece): one long-lived OpenSSL server context
// with Mozilla's "intermediate" profile — TLS 1.2 and 1.3 only; ECDHE/DHE with AES-GCM or
// ChaCha20-Poly1305 for 1.2; X25519, P-256, P-384; no compression, no renegotiation — whose
// certificate is chosen per handshake (a certificate callback) from a bundle that reload()
// swaps: a renewed certificate is served to the next handshake, connections already open keep
// theirs, nothing restarts. Not yet wired into the HTTP server (docs/operations.md).
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "domain/result.hpp"

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

}  // namespace certsteward::adapters::http
