// HTTP/1.1 on the wire against the packaged binary, over raw sockets (curl hides framing):
// pipelining, 100-continue, chunked bodies, HTTP/1.0, HEAD, refusals, and the idle and slow
// request timeouts. Every read is bounded by a deadline.
#include "e2e/api_support.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>
#include <string_view>

using namespace certsteward::testing::api;

namespace {

struct WireResponse {
  int status = 0;
  std::string head;  // status line and headers
  std::string body;

  std::string header(std::string_view name) const {
    std::string lowerHead = head;
    for (auto& ch : lowerHead)
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    const auto at = lowerHead.find("\r\n" + std::string(name) + ":");
    if (at == std::string::npos) return {};
    const auto start = at + 3 + name.size();
    const auto end = head.find("\r\n", start);
    auto value = head.substr(start, end - start);
    while (!value.empty() && value.front() == ' ')
      value.erase(0, 1);
    return value;
  }
};

// Parses the complete responses in `stream` from `at` on into `out`, advancing `at`. Responses
// are framed by Content-Length; 1xx, 204 and responses to HEAD (their indexes in `headOnly`)
// have no body.
void parseResponses(const std::string& stream, std::size_t& at, std::vector<WireResponse>& out,
                    const std::set<std::size_t>& headOnly) {
  while (at < stream.size()) {
    const auto end = stream.find("\r\n\r\n", at);
    if (end == std::string::npos) break;
    WireResponse r;
    r.head = stream.substr(at, end + 2 - at);
    r.status = std::atoi(r.head.c_str() + 9);
    std::size_t length = 0;
    if (const auto cl = r.header("content-length"); !cl.empty()) length = std::stoul(cl);
    const bool bodyless = r.status < 200 || r.status == 204 || headOnly.count(out.size()) != 0;
    if (bodyless) length = 0;
    if (end + 4 + length > stream.size()) break;
    r.body = stream.substr(end + 4, length);
    at = end + 4 + length;
    out.push_back(std::move(r));
  }
}

class Wire {
 public:
  explicit Wire(int port, int receiveBuffer = 0) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (receiveBuffer > 0) {
      ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receiveBuffer, sizeof receiveBuffer);
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  }
  ~Wire() { ::close(fd_); }
  Wire(const Wire&) = delete;
  Wire& operator=(const Wire&) = delete;

  void send(std::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      REQUIRE(n > 0);
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
  }

  // Reads until `enough(received)` holds, the server closes, or `limit` passes.
  template <typename Pred>
  std::string readUntil(Pred enough, std::chrono::milliseconds limit = std::chrono::seconds{5}) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!enough(received_) && !closed_) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buffer[65536];
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) {
        closed_ = true;
        break;
      }
      received_.append(buffer, static_cast<std::size_t>(n));
    }
    return received_;
  }

  std::vector<WireResponse> responses(std::size_t count, const std::set<std::size_t>& headOnly = {},
                                      std::chrono::milliseconds limit = std::chrono::seconds{5}) {
    std::vector<WireResponse> out;
    std::size_t at = 0;
    readUntil(
        [&](const std::string& s) {
          parseResponses(s, at, out, headOnly);
          return out.size() >= count;
        },
        limit);
    return out;
  }

  // Sends `chunk` over and over without reading, up to `maxBytes` or `limit`; true when the
  // server cuts the connection off (a send fails).
  bool floodUntilCut(const std::string& chunk, std::size_t maxBytes,
                     std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::size_t sent = 0;
    std::size_t offset = 0;
    while (sent < maxBytes && std::chrono::steady_clock::now() < deadline) {
      const ssize_t n =
          ::send(fd_, chunk.data() + offset, chunk.size() - offset, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        pollfd p{fd_, POLLOUT, 0};
        ::poll(&p, 1, 100);
        continue;
      }
      if (n <= 0) return true;
      sent += static_cast<std::size_t>(n);
      offset = (offset + static_cast<std::size_t>(n)) % chunk.size();
    }
    return false;
  }

  // True when the server closes the connection within `limit`.
  bool closesWithin(std::chrono::milliseconds limit) {
    readUntil([](const std::string&) { return false; }, limit);
    return closed_;
  }

  void clear() { received_.clear(); }
  // Half-closes: the server reads end-of-file, the client can still read.
  void shutdownWrite() { ::shutdown(fd_, SHUT_WR); }

 private:
  int fd_ = -1;
  std::string received_;
  bool closed_ = false;
};

std::string get(const std::string& path, const std::string& extra = {}) {
  return "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + "\r\n";
}

// The owner's login as raw bytes.
std::string ownerLogin(const std::string& extra = {}) {
  const std::string body = R"({"username":"root","password":"correct horse battery"})";
  return "POST /api/v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
         extra + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// A server whose logins take about a second (bcrypt cost 14), plus `config`.
ServerProcess slowLoginServer(const std::string& config) {
  return ServerProcess(
      std::map<std::string, std::string>{{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", kOwner},
                                         {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", kOwnerPassword}},
      "auth.bcrypt_cost = 14\n" + config);
}

}  // namespace

TEST_CASE("wire: pipelined requests are answered in order on one connection") {
  Wire wire(server().port());
  wire.send(get("/healthz") + get("/readyz") + get("/api/v1/auth/me") +
            "HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n" +
            get("/healthz", "X-Request-ID: mine-7\r\n"));
  const auto r = wire.responses(5, {3});
  REQUIRE(r.size() == 5);
  CHECK(r[0].status == 200);
  CHECK(r[0].body == R"({"status":"ok"})");
  CHECK(r[1].body == R"({"status":"ready"})");
  CHECK(r[2].status == 401);
  CHECK(r[3].status == 200);
  CHECK(r[3].header("content-length") == "15");  // HEAD: the length GET would send, no body
  CHECK(r[3].body.empty());
  CHECK(r[4].header("x-request-id") == "mine-7");
  std::set<std::string> ids;
  for (const auto& one : r) {
    CHECK_FALSE(one.header("date").empty());
    CHECK(one.header("connection").empty());  // HTTP/1.1 stays open without saying so
    ids.insert(one.header("x-request-id"));
  }
  CHECK(ids.size() == 5);
  wire.clear();
  wire.send(get("/healthz"));
  CHECK(wire.responses(1).size() == 1);  // still the same connection
}

TEST_CASE("wire: 100-continue, chunked bodies, HTTP/1.0") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string name = "chunked " + std::to_string(unique());
  const std::string body = R"({"name":")" + name + R"("})";

  SUBCASE("the server asks for the body with 100 Continue") {
    Wire wire(server().port());
    wire.send("POST /api/v1/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + owner.access +
              "\r\nContent-Type: application/json\r\nExpect: 100-continue\r\n" +
              "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n");
    const auto interim = wire.responses(1);
    REQUIRE(interim.size() == 1);
    CHECK(interim[0].status == 100);
    wire.send(body);
    const auto r = wire.responses(2);
    REQUIRE(r.size() == 2);
    CHECK(r[1].status == 201);
    CHECK(r[1].body.find(name) != std::string::npos);
  }
  SUBCASE("a chunked body arrives whole") {
    Wire wire(server().port());
    const std::string first = body.substr(0, 5);
    const std::string rest = body.substr(5);
    char sizes[64];
    std::snprintf(sizes, sizeof sizes, "%zx", first.size());
    std::string chunked = std::string(sizes) + ";x=y\r\n" + first + "\r\n";
    std::snprintf(sizes, sizeof sizes, "%zx", rest.size());
    chunked += std::string(sizes) + "\r\n" + rest + "\r\n0\r\n\r\n";
    wire.send("POST /api/v1/projects HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + owner.access +
              "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked);
    const auto r = wire.responses(1);
    REQUIRE(r.size() == 1);
    CHECK(r[0].status == 201);
    CHECK(r[0].body.find(name) != std::string::npos);
  }
  SUBCASE("HTTP/1.0 closes unless it asks for keep-alive") {
    Wire once(server().port());
    once.send("GET /healthz HTTP/1.0\r\n\r\n");
    const auto r = once.responses(1);
    REQUIRE(r.size() == 1);
    CHECK(r[0].status == 200);
    CHECK(r[0].header("connection") == "close");
    CHECK(once.closesWithin(std::chrono::seconds{5}));

    Wire kept(server().port());
    kept.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    const auto k = kept.responses(1);
    REQUIRE(k.size() == 1);
    CHECK(k[0].header("connection") == "keep-alive");
    kept.clear();
    kept.send("GET /readyz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    CHECK(kept.responses(1).size() == 1);
  }
}

TEST_CASE("wire: a request the server cannot read gets a JSON error and the connection closes") {
  struct Row {
    std::string name;
    std::string bytes;
    int status;
  };
  const std::vector<Row> rows{
      {"garbage", "HELLO\r\n\r\n", 400},
      {"HTTP/2 preface as text", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 505},
      {"smuggling framing",
       "POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
       "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
       400},
      {"unsupported coding", "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: br\r\n\r\n",
       501},
      {"declared body over max_request_bytes",
       "POST /api/v1/projects HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n{", 413},
      {"header section over 64 KiB",
       "GET /healthz HTTP/1.1\r\nX-Big: " + std::string(70 * 1024, 'a') + "\r\n\r\n", 431},
      {"request line over 8 KiB", "GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n\r\n", 414},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    Wire wire(server().port());
    wire.send(row.bytes);
    const auto r = wire.responses(1);
    REQUIRE(r.size() == 1);
    CHECK(r[0].status == row.status);
    CHECK(r[0].header("content-type") == "application/json");
    CHECK(r[0].header("connection") == "close");
    CHECK(r[0].header("x-request-id").size() == 24);
    CHECK(r[0].body.starts_with(R"({"error":")"));
    CHECK(wire.closesWithin(std::chrono::seconds{5}));
  }
  HttpClient http(server().baseUrl());
  CHECK(http.request("GET", "/healthz").status == 200);
  CHECK(server().running());
}

TEST_CASE("wire: idle connections and stalled requests are closed after their timeouts") {
  ServerProcess quick({}, "server.idle_timeout = 400ms\nserver.request_timeout = 400ms\n");

  Wire idle(quick.port());
  idle.send(get("/healthz"));
  REQUIRE(idle.responses(1).size() == 1);
  CHECK(idle.closesWithin(std::chrono::seconds{5}));

  Wire stalled(quick.port());
  stalled.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ");
  CHECK(stalled.closesWithin(std::chrono::seconds{5}));

  // A connection in use stays open: a request every 150 ms for 1.5 s.
  Wire busy(quick.port());
  for (int i = 0; i < 10; ++i) {
    busy.clear();
    busy.send(get("/healthz"));
    REQUIRE(busy.responses(1).size() == 1);
    std::this_thread::sleep_for(std::chrono::milliseconds{150});
  }
  busy.clear();
  busy.send(get("/healthz"));
  CHECK(busy.responses(1).size() == 1);
  CHECK(quick.running());
}

TEST_CASE("wire: a client that reads slowly still gets every pipelined response, in order") {
  // 2,000 requests for /metrics (a few kB each), written before reading anything, on a socket
  // with a small receive buffer: the buffers fill, the server's direct writes stop short, and
  // the rest goes through Pistache's write queue, which must keep the order.
  Wire wire(server().port(), 4096);
  std::string burst;
  for (int i = 0; i < 2000; ++i)
    burst += get("/metrics", "X-Request-ID: seq-" + std::to_string(i) + "\r\n");
  std::thread writer([&] { wire.send(burst); });
  std::this_thread::sleep_for(std::chrono::milliseconds{300});
  // Rendering 2,000 /metrics answers takes seconds under the sanitizers once the registry has
  // grown (all cases in one process).
  const auto r = wire.responses(2000, {}, std::chrono::seconds{60});
  writer.join();
  REQUIRE(r.size() == 2000);
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    CHECK(r[i].status == 200);
    CHECK(r[i].header("x-request-id") == "seq-" + std::to_string(i));
    CHECK(r[i].body.starts_with("# "));
    bytes += r[i].body.size();
  }
  CHECK(bytes > 4 * 1024 * 1024);  // more than loopback's socket buffers hold
}

TEST_CASE("wire: a client that sends without ever reading is cut off, and the server lives on") {
  Wire wire(server().port(), 4096);
  std::string chunk;
  for (int i = 0; i < 1000; ++i)
    chunk += get("/metrics");
  // The answers back up (a few MiB), then the unread requests pass the 4 MiB + body bound.
  CHECK(wire.floodUntilCut(chunk, 256u * 1024 * 1024, std::chrono::seconds{60}));
  HttpClient http(server().baseUrl());
  CHECK(http.request("GET", "/healthz").status == 200);
  CHECK(server().running());
}

TEST_CASE("wire: after a closing answer the server drops what follows, but not without end") {
  Wire wire(server().port());
  // A refused upload: the answer comes at once and the rest of the body is read and dropped...
  wire.send("POST /api/v1/projects HTTP/1.1\r\nHost: x\r\nContent-Length: 900000000\r\n\r\n");
  const auto r = wire.responses(1);
  REQUIRE(r.size() == 1);
  CHECK(r[0].status == 413);
  // ...up to 8 MiB; a client that goes on sending is reset.
  CHECK(wire.floodUntilCut(std::string(64 * 1024, 'x'), 256u * 1024 * 1024,
                           std::chrono::seconds{60}));
  HttpClient http(server().baseUrl());
  CHECK(http.request("GET", "/healthz").status == 200);
}

TEST_CASE("wire: a slow mutation runs off the HTTP thread, reads go on and pipelined order holds") {
  // One HTTP thread and bcrypt at cost 14 (about a second per login): without the request pool
  // every other request would wait for the login.
  ServerProcess slow = slowLoginServer("server.threads = 1\n");
  Wire loggingIn(slow.port());
  const auto started = std::chrono::steady_clock::now();
  loggingIn.send(ownerLogin() + get("/healthz", "X-Request-ID: after-login\r\n"));
  std::this_thread::sleep_for(std::chrono::milliseconds{100});

  // Meanwhile, on another connection (same HTTP thread): answered long before the login.
  Wire reader(slow.port());
  reader.send(get("/healthz") + get("/api/v1/auth/me"));
  const auto quick = reader.responses(2);
  const auto readTime = std::chrono::steady_clock::now() - started;
  REQUIRE(quick.size() == 2);
  CHECK(quick[0].status == 200);
  CHECK(quick[1].status == 401);

  const auto r = loggingIn.responses(2, {}, std::chrono::seconds{30});
  const auto loginTime = std::chrono::steady_clock::now() - started;
  REQUIRE(r.size() == 2);
  CHECK(r[0].status == 200);  // the login first, as sent
  CHECK(r[0].body.find("access_token") != std::string::npos);
  CHECK(r[1].header("x-request-id") == "after-login");
  // The login took the bcrypt time; the reads did not wait for it.
  CHECK(loginTime > std::chrono::milliseconds{400});
  CHECK(readTime * 2 < loginTime);
  CHECK(slow.stop() == 0);
}

TEST_CASE("wire: a client gone during a slow mutation does not hold up the stop") {
  ServerProcess slow = slowLoginServer("server.threads = 1\n");
  {
    Wire gone(slow.port());
    gone.send(ownerLogin());
    std::this_thread::sleep_for(std::chrono::milliseconds{200});
  }                                                      // closed while the login hashes
  std::this_thread::sleep_for(std::chrono::seconds{2});  // the login has finished by now
  const auto started = std::chrono::steady_clock::now();
  CHECK(slow.stop() == 0);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds{5});
}

TEST_CASE("wire: with every request thread busy and the queue full, a mutation gets 503 at once") {
  ServerProcess slow = slowLoginServer("server.request_threads = 1\nserver.request_queue = 1\n");
  const auto loginRequest = [](int n) {
    return ownerLogin("X-Forwarded-For: 10.99.0." + std::to_string(n) + "\r\n");
  };
  Wire first(slow.port());
  first.send(loginRequest(1));  // runs (about a second of bcrypt)
  std::this_thread::sleep_for(std::chrono::milliseconds{200});
  Wire second(slow.port());
  second.send(loginRequest(2));  // waits in the queue
  std::this_thread::sleep_for(std::chrono::milliseconds{200});
  Wire third(slow.port());
  const auto started = std::chrono::steady_clock::now();
  third.send(loginRequest(3));  // no room: refused at once
  const auto refused = third.responses(1);
  REQUIRE(refused.size() == 1);
  CHECK(refused[0].status == 503);
  CHECK(refused[0].header("retry-after") == "1");
  CHECK(refused[0].body.starts_with(R"({"error":")"));
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::milliseconds{500});
  // The two accepted ones are answered in turn.
  CHECK(first.responses(1, {}, std::chrono::seconds{30}).at(0).status == 200);
  CHECK(second.responses(1, {}, std::chrono::seconds{30}).at(0).status == 200);
  CHECK(slow.stop() == 0);
}

TEST_CASE("wire: a client that half-closes after its requests still gets them run and answered") {
  HttpClient http(server().baseUrl());
  const auto& owner = ownerSession(http);
  const std::string name = "half-closed " + std::to_string(unique());
  const std::string body = json::serialize(json::object{{"name", name}});
  Wire wire(server().port());
  wire.send(get("/healthz") + "POST /api/v1/projects HTTP/1.1\r\nHost: x\r\n" +
            "Authorization: Bearer " + owner.access +
            "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
            "\r\n\r\n" + body);
  wire.shutdownWrite();
  const auto r = wire.responses(2);
  REQUIRE(r.size() == 2);
  CHECK(r[0].status == 200);
  CHECK(r[1].status == 201);  // the mutation ran
  CHECK(wire.closesWithin(std::chrono::seconds{5}));
  auto projects = http.request("GET", "/api/v1/projects?page_size=100", "", {bearer(owner)});
  CHECK(projects.body.find(name) != std::string::npos);
}

TEST_CASE("wire: a half-close while a slow mutation runs on the pool still gets its answer") {
  auto slow = slowLoginServer("");
  Wire wire(slow.port());
  wire.send(ownerLogin() + get("/healthz"));  // the login takes about a second (bcrypt 14)
  std::this_thread::sleep_for(std::chrono::milliseconds{100});  // the login is on the pool
  wire.shutdownWrite();
  const auto r = wire.responses(2, {}, std::chrono::seconds{15});
  REQUIRE(r.size() == 2);
  CHECK(r[0].status == 200);  // the login's answer, written after the client half-closed
  CHECK(r[0].body.find("access_token") != std::string::npos);
  CHECK(r[1].status == 200);  // and the request that followed it
  CHECK(wire.closesWithin(std::chrono::seconds{5}));
}
