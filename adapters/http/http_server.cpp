// The server side of the HTTP adapter. Pistache supplies the TCP layer (listener, one epoll
// reactor per thread, its write queue); requests are read and responses written by
// http_codec, on the reactor thread that owns the connection. Pistache 0.0.5's own HTTP layer
// is not used: it queued every response through an eventfd and two more epoll rounds, dropped
// pipelined requests, never answered "100 Continue" and answered oversized requests in plain
// text (docs/architecture.md, HTTP server). Requests that may block run on a RequestPool. Every
// response carries X-Request-ID, errors are JSON, and no exception or internal detail reaches the
// client. With TLS on, each connection has a TlsStream: what the socket reads goes through it
// before the parser, and every write (answers, 100 Continue, the answers of a half-closed client)
// is sealed by it; Pistache still only moves bytes (its own TLS blocks its accept thread on
// each handshake and cannot be given a cipher policy).
#include <certsteward/adapters/http/http_server.hpp>

#include <certsteward/adapters/http/client_ip.hpp>
#include <certsteward/adapters/http/http_codec.hpp>
#include <certsteward/adapters/http/request_pool.hpp>
#include <certsteward/adapters/http/tls_context.hpp>

#include <pistache/listener.h>
#include <pistache/peer.h>
#include <pistache/tcp.h>
#include <pistache/transport.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>

namespace certsteward::adapters::http {
namespace {

using namespace Pistache;
using Clock = std::chrono::steady_clock;

// Unanswered input a connection may hold (beyond one body) while its answers wait unread.
constexpr std::size_t kMaxBacklog = 4 * 1024 * 1024;
// Input a closing connection may still send (and have dropped) before it is reset.
constexpr std::size_t kMaxLinger = 8 * 1024 * 1024;
// Answers are written out once this much has been rendered (pipelined requests).
constexpr std::size_t kBatchBytes = 256 * 1024;
// A streamed body is asked for pieces until this much is ready, then written as one chunk.
constexpr std::size_t kStreamPieceBytes = 64 * 1024;

std::int64_t nowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now().time_since_epoch())
      .count();
}

// A client's X-Request-ID is echoed when it is short and printable; otherwise one is made.
bool isAcceptableRequestId(const std::string& id) {
  return !id.empty() && id.size() <= 128 &&
         std::all_of(id.begin(), id.end(), [](char c) { return c > 0x20 && c < 0x7f; });
}

HttpResponse jsonError(int status, std::string_view message) {
  HttpResponse r;
  r.status = status;
  r.body = "{\"error\":\"";
  r.body += message;  // messages here are fixed ASCII texts without quotes
  r.body += "\"}";
  return r;
}

// One TCP connection. Everything but the atomics belongs to the reactor thread that owns it;
// the atomics are what the idle sweeper reads.
struct Connection {
  Connection(const std::shared_ptr<Tcp::Peer>& p, const ParserLimits& limits)
      : fd(p->fd()), host(p->address().host()), peer(p), parser(limits) {}
  const int fd;
  const std::string host;
  std::weak_ptr<Tcp::Peer> peer;
  RequestParser parser;
  std::string out;
  bool ready = false;  // input arrived in this reactor round and waits to be served
  bool gone = false;   // disconnected
  bool aborted = false;
  bool awaiting = false;    // a request of this connection is on the request pool
  std::size_t dropped = 0;  // input read and dropped while closing
  int queued_writes = 0;    // responses handed to Pistache's write queue and not written yet
  bool closing = false;     // the last response closes the connection; later input is dropped
  std::atomic<std::int64_t> last_activity_ms{nowMs()};  // input read, or queued output written
  std::atomic<std::int64_t> request_started_ms{0};      // a request has partly arrived (0: none)
  std::atomic<bool> busy{false};                        // a request is being served
  std::atomic<bool> closing_flag{false};
  std::atomic<bool> cut{false};  // the sweeper has shut the socket down
  // A client that half-closed while its request was on the pool: a duplicate of the socket,
  // kept open so the pool thread can still answer (set and read under orphan_mutex).
  std::mutex orphan_mutex;
  int orphan_fd = -1;
  std::unique_ptr<TlsStream> tls;  // null: plain HTTP
  bool peer_closed = false;        // the client sent TLS close_notify: nothing more will come
  // A streamed answer between two pieces, waiting for the client to take the last one (the
  // connection stays `awaiting`), and whether the connection closes after it.
  BodySource stream;
  bool stream_close = false;
  bool on_pool = false;  // a job of this connection (an answer, a piece) is on the request pool
};

struct Shared {
  Shared(HttpServerOptions o, HttpApplication a, ports::IdGenerator& i)
      : options(std::move(o)), app(std::move(a)), ids(i) {
    limits.max_body_bytes = options.max_request_bytes;
    trusted = options.trusted_proxies;  // none unless configured
  }
  HttpServerOptions options;
  HttpApplication app;
  ports::IdGenerator& ids;
  ParserLimits limits;
  std::vector<domain::Cidr> trusted;
  std::atomic<int> inflight{0};
  std::atomic<bool> draining{false};
  std::unique_ptr<RequestPool> pool;  // null: everything is served on the reactor threads
  std::mutex mutex;                   // guards connections (the sweeper's view)
  std::unordered_map<Connection*, std::shared_ptr<Connection>> connections;
  // Disconnected connections whose pool answer is still to be written to their orphan_fd.
  std::unordered_map<Connection*, std::shared_ptr<Connection>> orphans;
};

// An answer (or a piece of a streamed one) from the request pool, handed over to the
// connection's reactor thread.
struct Finished {
  std::weak_ptr<Connection> connection;
  std::string bytes;
  bool close = false;
  BodySource stream;  // set: a streamed answer goes on after `bytes`
  bool cut = false;   // a streamed answer failed: it ends here, and so does the connection
};

class ConnectionHandler : public Tcp::Handler,
                          public std::enable_shared_from_this<ConnectionHandler> {
 public:
  explicit ConnectionHandler(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}
  // Each reactor thread gets its own copy, with its own connections.
  std::shared_ptr<Tcp::Handler> clone() const override {
    return std::make_shared<ConnectionHandler>(shared_);
  }

  void onConnection(const std::shared_ptr<Tcp::Peer>& peer) override {
    auto c = std::make_shared<Connection>(peer, shared_->limits);
    if (shared_->options.tls) {
      c->tls = std::make_unique<TlsStream>(*shared_->options.tls);
      // The handshake is timed like a request that has partly arrived (request_timeout).
      c->request_started_ms.store(nowMs(), std::memory_order_relaxed);
    }
    {
      std::lock_guard lock(shared_->mutex);
      shared_->connections.emplace(c.get(), c);
    }
    connections_[peer->fd()] = std::move(c);
  }

  // Pistache closes the descriptor after this returns: once the connection is out of the
  // shared map, the sweeper can no longer touch the (reusable) descriptor number.
  void onDisconnection(const std::shared_ptr<Tcp::Peer>& peer) override {
    const auto it = connections_.find(peer->fd());
    if (it == connections_.end()) return;
    Connection& conn = *it->second;
    // Answers still in Pistache's queue are lost with the descriptor: the pool's answer would
    // follow a gap (a broken TLS stream), so it is dropped with them.
    if (conn.awaiting && !conn.closing && !conn.aborted && conn.queued_writes == 0) {
      std::lock_guard orphanLock(conn.orphan_mutex);
      collectFinished();  // an answer that has just come back is written now
      if (conn.awaiting && !conn.on_pool) {
        // A streamed answer waiting for the client to take its last piece: it ends here.
        conn.stream = nullptr;
      } else if (conn.awaiting) {
        // Still on the pool: it answers on a duplicate of the socket (finishOrphan).
        conn.orphan_fd = ::dup(peer->fd());
        if (conn.orphan_fd >= 0) {
          std::lock_guard lock(shared_->mutex);
          shared_->orphans.emplace(&conn, it->second);
        }
      }
    }
    if (!conn.awaiting) answerBeforeClose(conn, peer->fd());
    {
      std::lock_guard lock(shared_->mutex);
      shared_->connections.erase(it->second.get());
    }
    it->second->gone = true;
    connections_.erase(it);
  }

  // Input is only buffered here. Pistache calls this from a loop that reads the socket until
  // it is empty; serving inline would let a fast client keep one reactor thread to itself (its
  // next request arrives while the loop is still reading) and starve the other connections.
  // Requests are served once per reactor round instead (serveReady, from RoundTransport).
  void onInput(const char* data, size_t size, const std::shared_ptr<Tcp::Peer>& peer) override {
    const auto it = connections_.find(peer->fd());
    if (it == connections_.end()) return;
    Connection& c = *it->second;
    c.last_activity_ms.store(nowMs(), std::memory_order_relaxed);
    if (c.closing) {
      // A closing connection's remaining input (say the rest of a refused upload) is read and
      // dropped, so the client reads its answer instead of a reset; but not without end.
      c.dropped += size;
      if (c.dropped > kMaxLinger && !c.aborted) abort(c);
      return;
    }
    if (c.tls) {
      if (!receiveTls(it->second, peer, data, size)) return;
    } else {
      c.parser.feed(data, size);
    }
    // Pistache's read loop goes on while the client keeps sending, so the round (and serving)
    // can be put off indefinitely: past a bound, what is buffered is served here and now. If it
    // still cannot be (the answers wait unread in the write queue), the client sends without
    // reading and is cut off.
    const std::size_t bound = kMaxBacklog + shared_->limits.max_body_bytes;
    if (c.parser.buffered() > bound) serveConnection(it->second);
    if (c.parser.buffered() > bound && !c.closing) {
      spdlog::warn("closing a connection from {} that does not read its responses", c.host);
      abort(c);
      return;
    }
    markReady(it->second);
  }

  // Passes what the socket read through the connection's TLS: the plaintext to the parser, the
  // handshake's answers to the socket. False when the connection ends here.
  bool receiveTls(const std::shared_ptr<Connection>& conn, const std::shared_ptr<Tcp::Peer>& peer,
                  const char* data, std::size_t size) {
    Connection& c = *conn;
    std::string plain;
    std::string wire;
    switch (c.tls->receive(data, size, plain, wire)) {
      case TlsStream::Received::ok:
        break;
      case TlsStream::Received::closed:
        // Its complete requests are still answered; then close_notify and the end (serveBatch).
        c.peer_closed = true;
        break;
      case TlsStream::Received::plain_http:
        // Said in plain HTTP, which is what this client speaks, then closed.
        spdlog::debug("a plain HTTP request from {} on the TLS listener", c.host);
        appendResponse(c.out, jsonError(400, "this port speaks HTTPS; use https:// in the address"),
                       {shared_->ids.next(), false, true, false});
        c.closing = true;
        c.closing_flag.store(true);
        writeOut(conn, peer, true);
        return false;
      case TlsStream::Received::failed:
        spdlog::debug("TLS with {} failed: {}", c.host, c.tls->failure());
        c.out = std::move(wire);  // the alert, if any
        c.closing = true;
        c.closing_flag.store(true);
        writeOut(conn, peer, true);
        return false;
    }
    if (!wire.empty()) {
      c.out = std::move(wire);
      writeOut(conn, peer, true);
    }
    c.parser.feed(plain.data(), plain.size());
    return !c.closing;
  }

  // Serves every complete request that arrived in this reactor round, one connection after
  // the other, and writes the responses.
  void serveReady() {
    collectFinished();
    if (ready_.empty()) return;
    serving_.swap(ready_);
    for (const auto& conn : serving_) {
      conn->ready = false;
      if (!conn->gone) serveConnection(conn);
    }
    serving_.clear();
  }

 private:
  // Pistache reports end-of-file as a disconnection. A client that sent its requests and then
  // half-closed its side (shutdown(SHUT_WR)) still reads: its complete requests are run and
  // answered here, on this thread, before the descriptor closes — at most 8 of them, and the
  // answers get at most 1 s to be taken by the socket (a client that half-closes and does not
  // read holds this reactor thread no longer than that).
  void answerBeforeClose(Connection& c, int fd) {
    if (c.closing || c.awaiting || c.queued_writes > 0 || c.aborted) return;
    std::string out;
    serveLeftovers(c, out);
    // Nothing left to answer: TLS still ends with close_notify (the answers were complete).
    if (out.empty() && !(c.tls && c.tls->established())) return;
    c.closing = true;
    sendAll(fd, sealed(c, out), 1000);
  }

  // `plain` as the connection must carry it: as is, or sealed by its TLS, with a close_notify
  // after it when `last` (a connection that ends after these answers). Nothing when TLS cannot
  // seal.
  static std::string sealed(Connection& c, const std::string& plain, bool last = true) {
    if (!c.tls) return plain;
    std::string wire;
    if (!c.tls->seal(plain, wire, last)) return {};
    return wire;
  }

  // Runs the complete requests still buffered on a connection whose client half-closed (at most
  // 8) and appends their answers to `out`; a request it cannot read gets its error and ends it.
  void serveLeftovers(Connection& c, std::string& out) {
    for (int n = 0; n < 8; ++n) {
      HttpRequest request;
      RequestMeta meta;
      const auto result = c.parser.next(request, meta);
      if (result == RequestParser::Result::need_more) break;
      if (result == RequestParser::Result::error) {
        respond(out, jsonError(c.parser.error_status(), c.parser.error_message()),
                {shared_->ids.next(), false, true, false});
        break;
      }
      serve(request, meta, c.host, true, out);
    }
  }

  // Writes `bytes` to `fd`, waiting for the socket at most `limitMs` in all; false when not
  // all of it was taken.
  static bool sendAll(int fd, const std::string& bytes, std::int64_t limitMs) {
    const auto deadline = nowMs() + limitMs;
    std::size_t sent = 0;
    while (sent < bytes.size()) {
      const auto n =
          ::send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        sent += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return false;
      const auto left = deadline - nowMs();
      if (left <= 0) return false;
      pollfd p{fd, POLLOUT, 0};
      ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left, 100)));
    }
    return true;
  }

  // Asks a streamed body for its next piece (until about kStreamPieceBytes are ready, or it
  // ends) and appends it to `out` as one chunk, with the last chunk when the body is complete.
  // A source that throws has failed: the answer is cut short.
  static BodyStep nextPiece(BodySource& source, std::string& out) {
    std::string piece;
    BodyStep step = BodyStep::more;
    for (int calls = 0; step == BodyStep::more && piece.size() < kStreamPieceBytes && calls < 64;
         ++calls) {
      try {
        step = source(piece);
      } catch (const std::exception& e) {
        spdlog::error("a streamed answer failed: {}", e.what());
        step = BodyStep::failed;
      }
    }
    appendChunk(out, piece);
    if (step == BodyStep::done) appendLastChunk(out);
    return step;
  }

  // On the pool thread, for a connection that half-closed while its request was on the pool
  // (the reactor is done with it): writes the answer (a streamed one to its end, each piece
  // given at most 1 s to be taken and the whole at most kOrphanStreamMs, so a slow reader cannot
  // keep a pool thread; cut when the server stops), runs and answers the complete requests that
  // followed it (at most 8), and closes the duplicate socket. A cut-short answer ends the
  // connection.
  void finishOrphan(const std::shared_ptr<Connection>& conn, std::string answer, BodySource stream,
                    bool cut) {
    constexpr std::int64_t kOrphanStreamMs = 30000;
    Connection& c = *conn;
    std::string out = std::move(answer);
    const auto deadline = nowMs() + kOrphanStreamMs;
    while (stream && !cut) {
      if (nowMs() > deadline || shared_->draining.load()) {
        out.clear();
        cut = true;
        break;
      }
      const std::string wire = sealed(c, out, false);
      out.clear();
      if (wire.empty() || !sendAll(c.orphan_fd, wire, 1000)) {
        cut = true;
        break;
      }
      const BodyStep step = nextPiece(stream, out);
      if (step != BodyStep::more) stream = nullptr;
      if (step == BodyStep::failed) cut = true;
    }
    // A cut answer just ends: no close_notify after a record that may be missing or half sent.
    if (!cut) {
      serveLeftovers(c, out);
      sendAll(c.orphan_fd, sealed(c, out), 1000);
    } else if (!out.empty()) {
      // What the source made before it failed (nothing was skipped), without close_notify.
      sendAll(c.orphan_fd, sealed(c, out, false), 1000);
    }
    ::close(c.orphan_fd);
    std::lock_guard lock(shared_->mutex);
    shared_->orphans.erase(&c);
  }

  void serveConnection(const std::shared_ptr<Connection>& conn) {
    Connection& c = *conn;
    const auto peer = c.peer.lock();
    if (!peer || c.closing) return;
    // Answers still queued (the client reads slowly): the next requests wait until the queue
    // drains, so unread answers do not pile up in memory. A request on the pool: the next
    // ones wait for its answer, which must go first.
    if (c.queued_writes > 0 || c.awaiting) return;
    c.busy.store(true);
    c.out.clear();
    // Answers are written in batches of about kBatchBytes; when the socket does not take a
    // batch, the rest of the requests wait for the write queue to drain (see writeOut()).
    bool more = true;
    while (more && c.queued_writes == 0 && !c.closing && !c.awaiting) {
      more = serveBatch(conn);
      writeOut(conn, peer);
    }
    if (!c.parser.partial() && (!c.tls || c.tls->established())) {
      c.request_started_ms.store(0, std::memory_order_relaxed);
    } else if (c.request_started_ms.load(std::memory_order_relaxed) == 0) {
      c.request_started_ms.store(nowMs(), std::memory_order_relaxed);
    }
    c.closing_flag.store(c.closing);
    c.busy.store(c.awaiting);
  }

  // Serves complete requests into c.out until none is left (false) or the batch is full (true).
  bool serveBatch(const std::shared_ptr<Connection>& conn) {
    Connection& c = *conn;
    while (c.out.size() < kBatchBytes) {
      HttpRequest request;
      RequestMeta meta;
      const auto result = c.parser.next(request, meta);
      if (result == RequestParser::Result::need_more) {
        if (c.peer_closed) {
          c.closing = true;  // all it sent is answered: close_notify, then the end
        } else if (c.parser.continue_expected()) {
          c.out += "HTTP/1.1 100 Continue\r\n\r\n";
          c.parser.mark_continue_sent();
        }
        return false;
      }
      if (result == RequestParser::Result::error) {
        const std::string id = shared_->ids.next();
        respond(c.out, jsonError(c.parser.error_status(), c.parser.error_message()),
                {id, false, true, false});
        c.closing = true;
        return false;
      }
      const bool close = !meta.keep_alive || shared_->draining.load();
      if (mayBlock(request)) {
        if (dispatch(conn, std::move(request), meta, close)) return false;
      } else {
        serve(request, meta, c.host, close, c.out);
      }
      if (close) {
        c.closing = true;
        return false;
      }
    }
    return true;
  }

  // Requests that change something may block for long: password hashing (login, users), calls
  // to a CA or a DNS server (account validation, key rollover, credential tests). They run on
  // the request pool so that reads on the same reactor thread are not held up.
  bool mayBlock(const HttpRequest& request) const {
    return shared_->pool != nullptr && !shared_->draining.load() && shared_->app.blocking &&
           shared_->app.blocking(request);
  }

  // Hands the request to the pool; the connection serves nothing else until its answer is
  // back (collectFinished). When the pool's queue is full the request is answered 503 at once
  // (false): blocking this thread instead is what the pool is there to avoid.
  bool dispatch(const std::shared_ptr<Connection>& conn, HttpRequest request,
                const RequestMeta& meta, bool close) {
    Connection& c = *conn;
    if (shared_->pool->full()) {
      auto busy = jsonError(503, "the server is busy; try again shortly");
      busy.headers.emplace_back("Retry-After", "1");
      const std::string id = shared_->ids.next();
      respond(c.out, busy,
              {id, request.method == "HEAD", close, meta.minor_version == 0 && !close});
      return false;
    }
    auto self = shared_from_this();
    std::weak_ptr<Connection> weak = conn;
    std::weak_ptr<Tcp::Peer> weakPeer = c.peer;
    shared_->inflight.fetch_add(1);  // until the answer is written (collectFinished)
    c.on_pool = true;
    shared_->pool->submit(
        [self, weak, weakPeer, request = std::move(request), meta, close, host = c.host]() mutable {
          Finished done{weak, {}, close, {}, false};
          done.stream = self->serve(request, meta, host, close, done.bytes, true);
          self->deliver(std::move(done), weakPeer);
        });
    c.awaiting = true;
    c.busy.store(true);
    return true;
  }

  // On the pool thread: hands a finished answer (or piece of one) to the connection's reactor
  // thread, or writes it on the duplicate socket of a client that half-closed meanwhile.
  void deliver(Finished done, const std::weak_ptr<Tcp::Peer>& weakPeer) {
    const auto owner = done.connection.lock();
    if (!owner) {  // the client has gone: nobody to answer, nothing to wake
      shared_->inflight.fetch_sub(1);
      return;
    }
    std::unique_lock orphanLock(owner->orphan_mutex);
    if (owner->orphan_fd >= 0) {  // half-closed meanwhile: answer on the duplicate
      orphanLock.unlock();
      finishOrphan(owner, std::move(done.bytes), std::move(done.stream), done.cut);
      shared_->inflight.fetch_sub(1);
      return;
    }
    const auto peer = weakPeer.lock();
    if (!peer) {
      shared_->inflight.fetch_sub(1);
      return;
    }
    {
      std::lock_guard lock(finishedMutex_);
      finished_.push_back(std::move(done));
    }
    orphanLock.unlock();
    // Wakes the connection's reactor thread (an empty write through Pistache's queue); that
    // round collects the answer.
    peer->send(RawBuffer(std::string(), 0), MSG_NOSIGNAL);
  }

  // On the reactor thread, once the client has taken a streamed answer's last piece: the next
  // piece is made on the request pool and comes back like an answer (collectFinished).
  void pumpStream(const std::shared_ptr<Connection>& conn) {
    Connection& c = *conn;
    if (shared_->draining.load()) {
      // Stopping: the answer is cut short here (no last chunk), not left for a pool that may
      // be gone; the client sees an incomplete transfer and can ask again elsewhere.
      c.stream = nullptr;
      c.awaiting = false;
      c.closing = true;
      c.closing_flag.store(true);
      ::shutdown(c.fd, SHUT_RDWR);
      return;
    }
    c.on_pool = true;
    c.busy.store(true);
    shared_->inflight.fetch_add(1);  // until the piece is written (collectFinished)
    auto self = shared_from_this();
    std::weak_ptr<Connection> weak = conn;
    std::weak_ptr<Tcp::Peer> weakPeer = c.peer;
    shared_->pool->submit(
        [self, weak, weakPeer, source = std::move(c.stream), close = c.stream_close]() mutable {
          Finished done{weak, {}, close, {}, false};
          const BodyStep step = nextPiece(source, done.bytes);
          if (step == BodyStep::more) done.stream = std::move(source);
          done.cut = step == BodyStep::failed;
          self->deliver(std::move(done), weakPeer);
        });
    c.stream = nullptr;
  }

  // Answers `request` into `out`. A streamed answer (HttpResponse::stream) is returned, its
  // headers and first chunk in `out`, when `streaming` (on the request pool) and the client
  // speaks HTTP/1.1; otherwise it is read to its end here.
  BodySource serve(HttpRequest& request, const RequestMeta& meta, const std::string& host,
                   bool close, std::string& out, bool streaming = false) {
    // Counted while it runs, so a graceful stop can wait for it.
    shared_->inflight.fetch_add(1);
    struct Done {
      std::atomic<int>* n;
      ~Done() { n->fetch_sub(1); }
    } done{&shared_->inflight};

    if (const auto it = request.headers.find("x-request-id");
        it != request.headers.end() && isAcceptableRequestId(it->second)) {
      request.request_id = it->second;
    } else {
      request.request_id = shared_->ids.next();
    }
    const ResponseFraming framing{request.request_id, request.method == "HEAD", close,
                                  meta.minor_version == 0 && !close};
    if (shared_->draining.load()) {
      respond(out, jsonError(503, "the server is shutting down"),
              {request.request_id, false, true, false});
      return {};
    }
    try {
      if (request.path == "/healthz" || request.path == "/readyz" || !shared_->app.handle) {
        respond(out, route(request), framing);
        return {};
      }
      const auto forwarded = request.headers.find("x-forwarded-for");
      request.client_ip =
          clientIp(host, forwarded == request.headers.end() ? std::string() : forwarded->second,
                   shared_->trusted);
      HttpResponse response = shared_->app.handle(request);
      // HTTP/1.0 has no chunks (not even in the headers of a HEAD); off the pool nothing waits.
      if (response.stream && (meta.minor_version == 0 || (!streaming && !framing.head_only))) {
        readToEnd(response);
      }
      BodySource stream = framing.head_only ? nullptr : response.stream;
      respond(out, std::move(response), framing);
      return stream;
    } catch (const std::exception& e) {
      spdlog::error("request {} failed: {}", request.request_id, e.what());
      respond(out, jsonError(500, "internal error"), framing);
    } catch (...) {
      spdlog::error("request {} failed with an unknown exception", request.request_id);
      respond(out, jsonError(500, "internal error"), framing);
    }
    return {};
  }

  // A streamed answer as one body, for where it cannot be streamed; a source that fails turns
  // the answer into a 503 (nothing of it was sent yet).
  static void readToEnd(HttpResponse& response) {
    BodySource source = std::move(response.stream);
    response.stream = nullptr;
    for (BodyStep step = BodyStep::more; step != BodyStep::done;) {
      step = source(response.body);
      if (step == BodyStep::failed) {
        response = jsonError(503, "the answer could not be completed; try again");
        return;
      }
    }
  }

  // Every answer goes out through here, with the headers every response carries (HSTS).
  void respond(std::string& out, HttpResponse response, const ResponseFraming& framing) const {
    for (const auto& header : shared_->options.response_headers)
      response.headers.push_back(header);
    appendResponse(out, response, framing);
  }

  // The transport's own endpoints: liveness and readiness.
  HttpResponse route(const HttpRequest& request) {
    const bool known = request.path == "/healthz" || request.path == "/readyz";
    if (!known) return jsonError(404, "not found");
    if (request.method != "GET" && request.method != "HEAD") {
      auto r = jsonError(405, "method not allowed");
      r.headers.emplace_back("Allow", "GET, HEAD");
      return r;
    }
    if (request.path == "/healthz") return jsonOk(R"({"status":"ok"})");
    if (shared_->app.ready && !shared_->app.ready()) return jsonError(503, "store unavailable");
    return jsonOk(R"({"status":"ready"})");
  }

  static HttpResponse jsonOk(std::string body) {
    HttpResponse r;
    r.body = std::move(body);
    return r;
  }

  // Writes the responses straight to the socket from the reactor thread; what the socket does
  // not take at once goes to Pistache's write queue, which finishes it when the socket drains
  // (and then everything after it too, to keep the order).
  // An abortive close, only from inside Pistache's read loop: connect(AF_UNSPEC) dissolves the
  // TCP connection (the client gets a reset, where a half-closed socket would go on accepting
  // its data); the loop's next read then fails and Pistache closes the socket.
  static void abort(Connection& c) {
    c.closing = true;
    c.aborted = true;
    c.closing_flag.store(true);
    sockaddr unspecified{};
    unspecified.sa_family = AF_UNSPEC;
    ::connect(c.fd, &unspecified, sizeof unspecified);
  }

  // Writes the answers the pool finished for this thread's connections, in the connections'
  // order, and lets each connection go on with the requests that waited behind them.
  void collectFinished() {
    {
      std::lock_guard lock(finishedMutex_);
      if (finished_.empty()) return;
      collecting_.swap(finished_);
    }
    for (auto& done : collecting_) {
      if (const auto conn = done.connection.lock(); conn && !conn->gone) {
        conn->on_pool = false;
        conn->busy.store(false);
        conn->last_activity_ms.store(nowMs(), std::memory_order_relaxed);
        conn->out = std::move(done.bytes);
        if (done.stream) {
          // A piece of a streamed answer: the next is asked for once the client has taken
          // this one (here, or when the write queue drains: writeOut). Meanwhile the connection
          // is idle as far as the sweeper is concerned: a client that stops reading is cut.
          conn->stream = std::move(done.stream);
          conn->stream_close = done.close;
          // A request that has partly arrived behind it is timed from when it can be served.
          conn->request_started_ms.store(0, std::memory_order_relaxed);
          if (const auto peer = conn->peer.lock()) writeOut(conn, peer);
          if (conn->closing) {
            conn->stream = nullptr;  // the peer has gone
          } else if (conn->queued_writes == 0) {
            pumpStream(conn);
          }
        } else {
          conn->awaiting = false;
          if (done.close || done.cut) conn->closing = true;
          conn->closing_flag.store(conn->closing);
          if (const auto peer = conn->peer.lock()) writeOut(conn, peer);
          markReady(conn);
        }
      }
      shared_->inflight.fetch_sub(1);
    }
    collecting_.clear();
  }

  void markReady(const std::shared_ptr<Connection>& conn) {
    if (conn->ready || conn->gone) return;
    conn->ready = true;
    ready_.push_back(conn);
  }

  // c.out goes through the connection's TLS first, unless `raw` (bytes TLS made itself, or a
  // plain-HTTP answer to a client that did not speak TLS).
  void writeOut(const std::shared_ptr<Connection>& conn, const std::shared_ptr<Tcp::Peer>& peer,
                bool raw = false) {
    Connection& c = *conn;
    if (c.tls && !raw) {
      std::string wire;
      if (c.tls->established()) c.tls->seal(c.out, wire, c.closing);
      c.out.swap(wire);
    }
    std::size_t written = 0;
    if (c.queued_writes == 0) {
      while (written < c.out.size()) {
        const ssize_t n = ::send(c.fd, c.out.data() + written, c.out.size() - written,
                                 MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
          written += static_cast<std::size_t>(n);
        } else if (n < 0 && errno == EINTR) {
          continue;
        } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
          break;
        } else {
          // The peer is gone; Pistache sees the closed socket and cleans up.
          c.closing = true;
          c.closing_flag.store(true);
          ::shutdown(c.fd, SHUT_RDWR);
          c.out.clear();
          return;
        }
      }
    }
    if (written < c.out.size()) {
      ++c.queued_writes;
      std::weak_ptr<Connection> weak = conn;
      // Pistache settles the write on this reactor thread, inside a round: the handler (owned
      // by the transport) is alive, and requests that waited are served at the round's end.
      peer->send(RawBuffer(c.out.substr(written), c.out.size() - written), MSG_NOSIGNAL)
          .then(
              [weak, this](ssize_t) {
                if (const auto k = weak.lock()) {
                  // The client is reading: a long answer does not count as idle time.
                  k->last_activity_ms.store(nowMs(), std::memory_order_relaxed);
                  if (--k->queued_writes > 0) return;
                  if (k->stream && !k->closing && !k->gone) {
                    pumpStream(k);
                  } else if (k->closing) {
                    ::shutdown(k->fd, SHUT_WR);
                  } else if (k->parser.buffered() > 0 || k->peer_closed) {
                    markReady(k);
                  }
                }
              },
              [weak](std::exception_ptr) {
                if (const auto k = weak.lock()) {
                  --k->queued_writes;
                  ::shutdown(k->fd, SHUT_RDWR);
                }
              });
    } else if (c.closing && c.queued_writes == 0) {
      // Half-close: the client reads the response, then closes; its leftover input is still
      // read (and dropped), so it never meets a reset instead of its answer.
      ::shutdown(c.fd, SHUT_WR);
    }
    c.out.clear();
    if (c.out.capacity() > 256 * 1024) c.out.shrink_to_fit();
  }

  std::shared_ptr<Shared> shared_;
  std::unordered_map<int, std::shared_ptr<Connection>> connections_;
  std::vector<std::shared_ptr<Connection>> ready_;
  std::vector<std::shared_ptr<Connection>> serving_;
  std::mutex finishedMutex_;
  std::vector<Finished> finished_;
  std::vector<Finished> collecting_;
};

// Pistache's transport (one per reactor thread) with a hook after each round of ready
// descriptors: that is when the connection handler serves what the round read.
class RoundTransport : public Tcp::Transport {
 public:
  explicit RoundTransport(const std::shared_ptr<ConnectionHandler>& handler)
      : Tcp::Transport(handler), handler_(handler) {}

  void onReady(const Aio::FdSet& fds) override {
    Tcp::Transport::onReady(fds);
    handler_->serveReady();
  }

  // The reactor clones the prototype transport for each of its threads.
  std::shared_ptr<Aio::Handler> clone() const override {
    return std::make_shared<RoundTransport>(
        std::static_pointer_cast<ConnectionHandler>(handler_->clone()));
  }

 private:
  std::shared_ptr<ConnectionHandler> handler_;
};

}  // namespace

struct HttpServer::Impl {
  Impl(HttpServerOptions o, HttpApplication a, ports::IdGenerator& i)
      : shared(std::make_shared<Shared>(std::move(o), std::move(a), i)) {}

  // Closes connections that sat idle past idle_timeout, whose request stalled past
  // request_timeout, or that a closing response left open for 5 s.
  void sweep() {
    const auto& o = shared->options;
    const std::int64_t idleMs = o.idle_timeout.count();
    const std::int64_t requestMs = o.request_timeout.count();
    std::unique_lock wait(sweeperMutex);
    while (!sweeperStop) {
      const auto tick = std::chrono::milliseconds(
          std::clamp<std::int64_t>(std::min(idleMs, requestMs) / 4, 10, 1000));
      sweeperWake.wait_for(wait, tick, [&] { return sweeperStop; });
      if (sweeperStop) break;
      const std::int64_t now = nowMs();
      std::lock_guard lock(shared->mutex);
      for (const auto& [raw, c] : shared->connections) {
        if (c->busy.load() || c->cut.load()) continue;
        const std::int64_t quiet = now - c->last_activity_ms.load(std::memory_order_relaxed);
        const std::int64_t started = c->request_started_ms.load(std::memory_order_relaxed);
        const bool expired = c->closing_flag.load() ? quiet > std::min<std::int64_t>(idleMs, 5000)
                             : started != 0         ? now - started > requestMs
                                                    : quiet > idleMs;
        if (expired) {
          c->cut.store(true);
          ::shutdown(c->fd, SHUT_RDWR);  // Pistache then reads end-of-file and closes it
        }
      }
    }
  }

  std::shared_ptr<Shared> shared;
  std::unique_ptr<Tcp::Listener> listener;
  std::atomic<bool> running{false};
  std::thread sweeper;
  std::mutex sweeperMutex;
  std::condition_variable sweeperWake;
  bool sweeperStop = false;
};

HttpServer::HttpServer(HttpServerOptions options, HttpApplication application,
                       ports::IdGenerator& ids)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(application), ids)) {}

HttpServer::~HttpServer() {
  stop();
}

domain::Status HttpServer::start() {
  const auto& o = impl_->shared->options;
  if (o.request_threads > 0) {
    impl_->shared->pool = std::make_unique<RequestPool>(o.request_threads, o.request_queue);
  }
  try {
    impl_->listener = std::make_unique<Tcp::Listener>(Address(o.address, Port(o.port)));
    impl_->listener->init(static_cast<size_t>(std::max(1, o.threads)),
                          Flags<Tcp::Options>(Tcp::Options::ReuseAddr) | Tcp::Options::NoDelay,
                          "http");
    auto handler = std::make_shared<ConnectionHandler>(impl_->shared);
    impl_->listener->setHandler(handler);
    impl_->listener->setTransportFactory(
        [handler] { return std::make_shared<RoundTransport>(handler); });
    impl_->listener->bind();
    impl_->listener->runThreaded();
  } catch (const std::exception& e) {
    impl_->listener.reset();
    return domain::makeError(
        domain::ErrorCode::unavailable,
        "cannot listen on " + o.address + ":" + std::to_string(o.port) + ": " + e.what());
  }
  impl_->sweeperStop = false;
  impl_->sweeper = std::thread([this] { impl_->sweep(); });
  impl_->running = true;
  return {};
}

std::uint16_t HttpServer::port() const {
  return impl_->listener ? static_cast<std::uint16_t>(impl_->listener->getPort()) : 0;
}

void HttpServer::stop() {
  if (!impl_ || !impl_->running.exchange(false)) return;
  auto& shared = *impl_->shared;
  // Finish what is in flight (bounded), answering anything new with 503, then close.
  shared.draining = true;
  const auto deadline = Clock::now() + shared.options.drain_timeout;
  while (shared.inflight.load() > 0 && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
  if (shared.inflight.load() > 0) {
    spdlog::warn(
        "stopping with {} request(s) still running after {} s", shared.inflight.load(),
        std::chrono::duration_cast<std::chrono::seconds>(shared.options.drain_timeout).count());
  }
  if (shared.pool) shared.pool->stop();
  {
    std::lock_guard lock(impl_->sweeperMutex);
    impl_->sweeperStop = true;
  }
  impl_->sweeperWake.notify_all();
  if (impl_->sweeper.joinable()) impl_->sweeper.join();
  impl_->listener->shutdown();
}

}  // namespace certsteward::adapters::http
