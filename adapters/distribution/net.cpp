// Sockets and the served-certificate check.
#include <certsteward/adapters/distribution/net.hpp>

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <thread>
#include <variant>

namespace certsteward::adapters::distribution {

using domain::ErrorCode;
using domain::makeError;
using Clock = std::chrono::steady_clock;

Socket& Socket::operator=(Socket&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

Socket::~Socket() {
  if (fd_ >= 0) ::close(fd_);
}

domain::Status Socket::sendAll(const std::string& bytes) {
  std::size_t sent = 0;
  while (sent < bytes.size()) {
    const auto n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return makeError(ErrorCode::unavailable, "the peer did not accept data in time", "TIMEOUT");
    }
    if (n <= 0) {
      return makeError(ErrorCode::unavailable,
                       "the connection broke: " + std::string(std::strerror(errno)),
                       "CONNECT_FAILED");
    }
    sent += static_cast<std::size_t>(n);
  }
  return {};
}

domain::Result<std::string> Socket::readToEnd(std::size_t limit, std::chrono::milliseconds total) {
  std::string out;
  char buf[4096];
  const auto deadline = Clock::now() + total;
  while (out.size() < limit) {
    if (Clock::now() > deadline) {
      return makeError(ErrorCode::unavailable, "the peer did not finish its answer in time",
                       "TIMEOUT");
    }
    const auto n = ::recv(fd_, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      return makeError(ErrorCode::unavailable, "the peer did not answer in time", "TIMEOUT");
    }
    if (n < 0) {
      return makeError(ErrorCode::unavailable,
                       "the connection broke: " + std::string(std::strerror(errno)),
                       "CONNECT_FAILED");
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

namespace {

void setTimeouts(int fd, std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

// Connects `fd` to `addr`, waiting at most `timeout`.
domain::Status connectWithin(int fd, const sockaddr* addr, socklen_t len,
                             std::chrono::milliseconds timeout, const std::string& what) {
  const int flags = ::fcntl(fd, F_GETFL, 0);
  ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int rc = ::connect(fd, addr, len);
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    rc = ::poll(&p, 1, static_cast<int>(timeout.count()));
    if (rc == 0) {
      return makeError(ErrorCode::unavailable,
                       what + ": no connection within " + std::to_string(timeout.count()) + " ms",
                       "TIMEOUT");
    }
    int err = 0;
    socklen_t errLen = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &errLen);
    rc = err == 0 ? 0 : -1;
    errno = err;
  }
  if (rc != 0) {
    return makeError(ErrorCode::unavailable, what + ": " + std::string(std::strerror(errno)),
                     "CONNECT_FAILED");
  }
  ::fcntl(fd, F_SETFL, flags);
  setTimeouts(fd, timeout);
  return {};
}

}  // namespace

domain::Result<Socket> connectTo(const std::string& address, std::chrono::milliseconds timeout) {
  if (address.starts_with("unix:")) {
    const std::string path = address.substr(5);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path) {
      return makeError(ErrorCode::invalid_argument, "the socket path is too long",
                       "CONNECT_FAILED");
    }
    std::memcpy(addr.sun_path, path.data(), path.size());
    Socket s(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (s.fd() < 0) return makeError(ErrorCode::unavailable, "no socket", "CONNECT_FAILED");
    if (auto c = connectWithin(s.fd(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr,
                               timeout, "cannot connect to " + address);
        !c) {
      return c.error();
    }
    return s;
  }
  const auto hostPort = domain::splitHostPort(address);
  if (!hostPort) {
    return makeError(ErrorCode::invalid_argument, "not host:port: " + address, "CONNECT_FAILED");
  }
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(hostPort->first.c_str(), std::to_string(hostPort->second).c_str(),
                               &hints, &found);
  if (rc != 0) {
    return makeError(ErrorCode::unavailable,
                     "cannot resolve " + hostPort->first + ": " + ::gai_strerror(rc),
                     "CONNECT_FAILED");
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(found, ::freeaddrinfo);
  domain::Status last = makeError(ErrorCode::unavailable, "no address", "CONNECT_FAILED");
  for (auto* a = found; a != nullptr; a = a->ai_next) {
    Socket s(::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol));
    if (s.fd() < 0) continue;
    last =
        connectWithin(s.fd(), a->ai_addr, a->ai_addrlen, timeout, "cannot connect to " + address);
    if (last) return s;
  }
  return last.error();
}

namespace {

using X509Ptr = std::unique_ptr<X509, decltype(&::X509_free)>;

X509Ptr parseLeaf(const std::string& pem) {
  std::unique_ptr<BIO, decltype(&::BIO_free)> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), ::BIO_free);
  return X509Ptr(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr,
                 ::X509_free);
}

std::string serialOf(X509* cert) {
  const ASN1_INTEGER* serial = X509_get0_serialNumber(cert);
  std::unique_ptr<BIGNUM, decltype(&::BN_free)> bn(ASN1_INTEGER_to_BN(serial, nullptr), ::BN_free);
  if (!bn) return "?";
  char* hex = BN_bn2hex(bn.get());
  std::string out = hex != nullptr ? hex : "?";
  OPENSSL_free(hex);
  return out;
}

// What the server serves: its leaf, or why there is none.
std::variant<X509Ptr, std::string> servedLeaf(const std::string& address,
                                              const std::string& serverName,
                                              std::chrono::milliseconds timeout) {
  auto socket = connectTo(address, timeout);
  if (!socket) return socket.error().message;
  std::unique_ptr<SSL_CTX, decltype(&::SSL_CTX_free)> ctx(SSL_CTX_new(TLS_client_method()),
                                                          ::SSL_CTX_free);
  if (!ctx) return std::string("no TLS context");
  SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);  // compared byte for byte below
  std::unique_ptr<SSL, decltype(&::SSL_free)> ssl(SSL_new(ctx.get()), ::SSL_free);
  SSL_set_fd(ssl.get(), socket->fd());
  if (!serverName.empty()) SSL_set_tlsext_host_name(ssl.get(), serverName.c_str());
  if (SSL_connect(ssl.get()) != 1) return "no TLS handshake with " + address;
  X509Ptr leaf(SSL_get1_peer_certificate(ssl.get()), ::X509_free);
  SSL_shutdown(ssl.get());
  if (!leaf) return address + " presented no certificate";
  return leaf;
}

}  // namespace

std::optional<std::string> checkServedCertificate(const domain::Settings& settings,
                                                  const std::string& leafPem,
                                                  std::chrono::milliseconds timeout) {
  const auto address = settings.find("verify_address");
  if (address == settings.end() || address->second.empty()) return std::nullopt;
  const auto name = settings.find("verify_server_name");
  const std::string serverName = name == settings.end() ? std::string() : name->second;
  const auto expected = parseLeaf(leafPem);
  if (!expected) return std::string("the delivered certificate cannot be read");
  const auto deadline = Clock::now() + timeout;
  std::string last;
  for (int attempt = 0; attempt < 1000; ++attempt) {
    auto served = servedLeaf(address->second, serverName,
                             std::min<std::chrono::milliseconds>(timeout, std::chrono::seconds{5}));
    if (auto* leaf = std::get_if<X509Ptr>(&served)) {
      if (X509_cmp(leaf->get(), expected.get()) == 0) return std::nullopt;
      last = address->second + " still serves serial " + serialOf(leaf->get()) + ", not " +
             serialOf(expected.get());
    } else {
      last = std::get<std::string>(served);
    }
    if (Clock::now() + std::chrono::milliseconds{200} > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds{200});
  }
  return last;
}

}  // namespace certsteward::adapters::distribution
