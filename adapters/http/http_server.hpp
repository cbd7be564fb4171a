// HttpServer: HTTP/1.1 over Pistache's TCP listener. Serves the unversioned operational
// endpoints (/healthz, /readyz, /metrics) and the REST API under /api/. Pistache types stay in
// the .cpp.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "domain/result.hpp"
#include "ports/id_generator.hpp"
#include "ports/store.hpp"

namespace certsteward::adapters::http {

struct HttpServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 8080;        // 0 = any free port (see HttpServer::port())
  int threads = 1;                  // reactor threads (each serves its share of the connections)
  int request_threads = 4;          // threads for requests that may block (mutations); 0: none
  std::size_t request_queue = 256;  // requests waiting for those threads; more get 503
  std::size_t max_request_bytes = 1024 * 1024;       // headers + body; larger requests get 413
  std::vector<std::string> trusted_proxies;          // empty: the spec's private ranges
  std::chrono::milliseconds drain_timeout{25000};    // stop() waits this long for running requests
  std::chrono::milliseconds idle_timeout{75000};     // a keep-alive connection with no request
  std::chrono::milliseconds request_timeout{30000};  // a request that has not fully arrived
};

class Api;

class HttpServer {
 public:
  // `api` (may be null: then only the operational endpoints answer) serves /api/.
  HttpServer(HttpServerOptions options, ports::Store& store, ports::IdGenerator& ids,
             Api* api = nullptr);
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
