// A streamed answer through the real HttpServer on 127.0.0.1, read over a raw socket: chunked
// framing with every piece in order, the next request of the connection answered after it, a
// client that reads slowly still gets all of it, HTTP/1.0 and HEAD, a source that fails mid-way
// cuts the answer short (no last chunk) and closes the connection; and over TLS, also to a client
// that half-closed while its request was still being answered. Every read is bounded.
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <string_view>
#include <thread>

#include <certsteward/adapters/http/http_server.hpp>
#include <certsteward/adapters/http/tls_context.hpp>
#include "support/test_certificates.hpp"

namespace http = certsteward::adapters::http;

namespace {

class CountingIds : public certsteward::ports::IdGenerator {
 public:
  certsteward::domain::Id next() override {
    return "66000000000000000000" + std::to_string(1000 + n_++ % 9000);
  }

 private:
  std::atomic<int> n_{0};
};

// Set once the server is answering /slow on its request pool.
std::atomic<bool>& slowStarted() {
  static std::atomic<bool> started{false};
  return started;
}

// Piece i of the test stream: a line that names its number, padded so pieces are large.
std::string pieceOf(int i) {
  return "piece " + std::to_string(i) + " " + std::string(static_cast<std::size_t>(4000 + i), 'x') +
         "\n";
}

constexpr int kPieces = 200;  // about 1.2 MB in all: several chunks, more than a socket buffer

std::string wholeStream() {
  std::string all = "head\n";
  for (int i = 0; i < kPieces; ++i)
    all += pieceOf(i);
  return all;
}

http::HttpResponse answer(const http::HttpRequest& request) {
  http::HttpResponse r;
  r.content_type = "text/plain";
  if (request.path == "/small") {
    r.body = "small";
    return r;
  }
  r.body = "head\n";
  // Still being answered when the client half-closes (the TLS orphan case below): the client
  // half-closes once this has started, and it goes on 400 ms more.
  if (request.path == "/slow") {
    slowStarted().store(true);
    std::this_thread::sleep_for(std::chrono::milliseconds{400});
  }
  const bool broken = request.path == "/broken";
  r.stream = [broken, i = 0](std::string& out) mutable {
    if (broken && i == 20) return http::BodyStep::failed;  // past the first chunk
    out += pieceOf(i++);
    return i == kPieces ? http::BodyStep::done : http::BodyStep::more;
  };
  return r;
}

class Wire {
 public:
  Wire(std::uint16_t port, int receiveBuffer = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (receiveBuffer > 0) {
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, sizeof receiveBuffer);
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  }
  ~Wire() { ::close(fd_); }
  Wire(const Wire&) = delete;
  Wire& operator=(const Wire&) = delete;

  void send(std::string_view bytes) {
    REQUIRE(::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(bytes.size()));
  }

  // Reads until `done(received)` or the peer closes (closed() then says so), at most 20 s; with
  // `pause`, sleeps that long between reads of at most 4 KiB (a slow reader).
  template <typename Done>
  std::string readUntil(Done done, std::chrono::milliseconds pause = {}) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!done(received_) && std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      char buf[65536];
      const auto want = pause.count() > 0 ? std::size_t{4096} : sizeof buf;
      const ssize_t n = ::recv(fd_, buf, want, 0);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      received_.append(buf, static_cast<std::size_t>(n));
      if (pause.count() > 0) std::this_thread::sleep_for(pause);
    }
    return received_;
  }
  bool closed() const { return closed_; }

 private:
  int fd_ = -1;
  std::string received_;
  bool closed_ = false;
};

struct Chunked {
  std::string head;
  std::string body;
  bool complete = false;     // the last chunk was read
  std::size_t consumed = 0;  // bytes of the stream this answer took
  std::size_t chunks = 0;
};

// Decodes one chunked answer from the start of `bytes` (as far as it goes).
Chunked decodeChunked(const std::string& bytes) {
  Chunked c;
  const auto end = bytes.find("\r\n\r\n");
  if (end == std::string::npos) return c;
  c.head = bytes.substr(0, end + 2);
  std::size_t at = end + 4;
  while (true) {
    const auto line = bytes.find("\r\n", at);
    if (line == std::string::npos) return c;
    const std::size_t size = std::stoul(bytes.substr(at, line - at), nullptr, 16);
    if (size == 0) {
      if (bytes.size() < line + 4) return c;
      c.complete = bytes.compare(line + 2, 2, "\r\n") == 0;
      c.consumed = line + 4;
      return c;
    }
    if (bytes.size() < line + 2 + size + 2) return c;
    c.body += bytes.substr(line + 2, size);
    ++c.chunks;
    at = line + 2 + size + 2;
  }
}

struct Served {
  CountingIds ids;
  http::HttpServer server;
  explicit Served(int requestThreads = 2, std::shared_ptr<http::TlsContext> tls = nullptr)
      : server(
            [requestThreads, &tls] {
              http::HttpServerOptions o;
              o.port = 0;
              o.request_threads = requestThreads;
              o.idle_timeout = std::chrono::seconds(10);
              o.tls = tls;
              return o;
            }(),
            http::HttpApplication{answer, [](const http::HttpRequest&) { return true; }, {}}, ids) {
    REQUIRE(server.start().ok());
  }
  ~Served() { server.stop(); }
};

}  // namespace

TEST_CASE("http streaming: a streamed answer arrives whole in chunks, then the next request") {
  Served s;
  Wire wire(s.server.port());
  // Two requests at once: the second waits for the whole stream, then is answered.
  wire.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto bytes = wire.readUntil([](const std::string& b) {
    const auto c = decodeChunked(b);
    return c.complete && b.size() > c.consumed && b.ends_with("small");
  });
  const auto c = decodeChunked(bytes);
  REQUIRE(c.complete);
  CHECK(c.head.starts_with("HTTP/1.1 200 OK\r\n"));
  CHECK(c.head.find("\r\nTransfer-Encoding: chunked\r\n") != std::string::npos);
  CHECK(c.head.find("Content-Length") == std::string::npos);
  CHECK(c.body == wholeStream());
  CHECK(c.chunks > 5);  // pieces of about 64 KiB, not one block
  const std::string rest = bytes.substr(c.consumed);
  CHECK(rest.starts_with("HTTP/1.1 200 OK\r\n"));
  CHECK(rest.find("Content-Length: 5\r\n") != std::string::npos);
  CHECK(rest.ends_with("\r\n\r\nsmall"));
}

TEST_CASE("http streaming: a client that reads slowly still gets every piece") {
  Served s;
  Wire wire(s.server.port(), 4096);  // a small receive buffer: the server's writes queue up
  wire.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto bytes = wire.readUntil([](const std::string& b) { return decodeChunked(b).complete; },
                                    std::chrono::milliseconds(1));
  const auto c = decodeChunked(bytes);
  REQUIRE(c.complete);
  CHECK(c.body == wholeStream());
}

TEST_CASE("http streaming: HTTP/1.0 gets the whole body with a length, HEAD only the headers") {
  Served s;
  {
    Wire wire(s.server.port());
    wire.send("GET /big HTTP/1.0\r\nHost: x\r\n\r\n");
    const auto bytes = wire.readUntil([](const std::string&) { return false; });  // until closed
    CHECK(wire.closed());
    const auto end = bytes.find("\r\n\r\n");
    REQUIRE(end != std::string::npos);
    const auto head = bytes.substr(0, end + 2);
    CHECK(head.find("Transfer-Encoding") == std::string::npos);
    CHECK(head.find("\r\nContent-Length: " + std::to_string(wholeStream().size()) + "\r\n") !=
          std::string::npos);
    CHECK(bytes.substr(end + 4) == wholeStream());
  }
  {
    Wire wire(s.server.port());
    wire.send("HEAD /big HTTP/1.1\r\nHost: x\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\n");
    const auto bytes = wire.readUntil([](const std::string& b) { return b.ends_with("small"); });
    const auto end = bytes.find("\r\n\r\n");
    REQUIRE(end != std::string::npos);
    CHECK(bytes.substr(0, end).find("Transfer-Encoding: chunked") != std::string::npos);
    CHECK(bytes.substr(end + 4).starts_with("HTTP/1.1 200 OK\r\n"));  // no body, no chunk
  }
}

TEST_CASE("http streaming: a source that fails cuts the answer short and closes the connection") {
  Served s;
  Wire wire(s.server.port());
  wire.send("GET /broken HTTP/1.1\r\nHost: x\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\n");
  const auto bytes = wire.readUntil([](const std::string&) { return false; });  // until closed
  CHECK(wire.closed());
  const auto c = decodeChunked(bytes);
  CHECK_FALSE(c.complete);  // no last chunk: the client knows the answer is incomplete
  CHECK(c.body.starts_with("head\npiece 0 "));
  CHECK(c.body.size() < wholeStream().size());
  CHECK(bytes.find("small") == std::string::npos);  // nothing after it on that connection
}

TEST_CASE("http streaming: without a request pool the stream is read to its end") {
  Served s(0);
  Wire wire(s.server.port());
  wire.send("GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  const auto bytes = wire.readUntil([](const std::string&) { return false; });
  const auto end = bytes.find("\r\n\r\n");
  REQUIRE(end != std::string::npos);
  CHECK(bytes.substr(0, end).find("Content-Length: " + std::to_string(wholeStream().size())) !=
        std::string::npos);
  CHECK(bytes.substr(end + 4) == wholeStream());
}

namespace {

// `request` over TLS to 127.0.0.1:`port` (no certificate check: a test server); with
// `halfClose`, the client shuts its sending side (TCP, no close_notify) once the server is
// answering (slowStarted, at most 5 s) and reads on. Everything read until the server closes, at
// most 20 s.
std::string overTls(std::uint16_t port, const std::string& request, bool halfClose) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  timeval limit{20, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)> ctx(SSL_CTX_new(TLS_client_method()),
                                                        SSL_CTX_free);
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl(SSL_new(ctx.get()), SSL_free);
  SSL_set_fd(ssl.get(), fd);
  REQUIRE(SSL_connect(ssl.get()) == 1);
  REQUIRE(SSL_write(ssl.get(), request.data(), static_cast<int>(request.size())) ==
          static_cast<int>(request.size()));
  if (halfClose) {
    for (int i = 0; i < 500 && !slowStarted().load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds{10});
    ::shutdown(fd, SHUT_WR);
  }
  std::string received;
  char buf[65536];
  for (int n; (n = SSL_read(ssl.get(), buf, sizeof buf)) > 0;)
    received.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  return received;
}

}  // namespace

TEST_CASE("http streaming: over TLS, whole, also to a client that half-closed meanwhile") {
  const auto m = certsteward::testing::makeTestMaterial("localhost");
  auto ctx = http::TlsContext::create(m.certificate_pem + m.chain_pem, m.private_key_pem);
  REQUIRE(ctx.ok());
  Served s(2, std::shared_ptr<http::TlsContext>(std::move(*ctx)));
  {
    const auto bytes = overTls(s.server.port(),
                               "GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", false);
    const auto c = decodeChunked(bytes);
    REQUIRE(c.complete);
    CHECK(c.body == wholeStream());
  }
  {
    // Half-closed while the answer is still being made on the request pool: the rest of the
    // stream goes out on the connection's duplicate, sealed by its TLS like every piece.
    const auto bytes = overTls(s.server.port(), "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n", true);
    const auto c = decodeChunked(bytes);
    REQUIRE(c.complete);
    CHECK(c.body == wholeStream());
  }
}
