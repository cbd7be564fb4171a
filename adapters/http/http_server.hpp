// HttpServer: HTTP/1.1 over Pistache's TCP listener — the transport. It answers /healthz and
// /readyz itself and hands every other request to an HttpApplication (the REST API in the
// server), knowing nothing of what it serves. Pistache types stay in the .cpp.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <certsteward/adapters/http/http_types.hpp>
#include <certsteward/adapters/http/tls_context.hpp>
#include <certsteward/domain/outbound.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/ports/id_generator.hpp>

namespace certsteward::adapters::http {

struct HttpServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 8080;        // 0 = any free port (see HttpServer::port())
  int threads = 1;                  // reactor threads (each serves its share of the connections)
  int request_threads = 4;          // threads for requests that may block (mutations); 0: none
  std::size_t request_queue = 256;  // requests waiting for those threads; more get 503
  std::size_t max_request_bytes = 1024 * 1024;       // headers + body; larger requests get 413
  std::vector<domain::Cidr> trusted_proxies;         // empty: no proxy is trusted
  std::chrono::milliseconds drain_timeout{25000};    // stop() waits this long for running requests
  std::chrono::milliseconds idle_timeout{75000};     // a keep-alive connection with no request
  std::chrono::milliseconds request_timeout{30000};  // a request (or TLS handshake) arriving
  // Serves HTTPS with this context (its certificate can be reloaded while serving); null: HTTP.
  std::shared_ptr<TlsContext> tls;
  // Added to every response (Strict-Transport-Security, say).
  std::vector<std::pair<std::string, std::string>> response_headers;
};

// What the server serves besides /healthz and /readyz.
struct HttpApplication {
  // Answers every other request (its own 404s and 405s included), with client_ip and
  // request_id set. Called on a reactor thread, or on the request pool for `blocking` ones.
  // Empty: everything else is 404.
  std::function<HttpResponse(const HttpRequest&)> handle;
  // Whether answering may block (password hashing, a call to a CA or a DNS server): such
  // requests run on the request pool. Empty: none.
  std::function<bool(const HttpRequest&)> blocking;
  // GET /readyz: whether this instance can serve (its store answers); 503 when not. Empty:
  // always ready.
  std::function<bool()> ready;
};

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, HttpApplication application, ports::IdGenerator& ids);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and serves on background threads. unavailable when the address cannot be bound.
  domain::Status start();
  // The bound port (useful with port 0).
  std::uint16_t port() const;
  // Lets running requests finish (at most drain_timeout; new ones get 503), then closes.
  // Idempotent.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace certsteward::adapters::http
