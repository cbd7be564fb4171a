// HttpStub: a plain HTTP/1.1 server on 127.0.0.1 for tests that need to play a small part of
// a remote service (an ACME directory with renewalInfo, recorded answers). One request per
// connection, answered by the handler and closed. Bounded: requests over 64 kB are cut, the
// accept loop wakes every 100 ms to see whether it should stop, and the destructor joins it.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace certsteward::testing {

struct StubReply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers = {};  // extra header lines
};

class HttpStub {
 public:
  using Handler = std::function<StubReply(const std::string& method, const std::string& path)>;

  // On 127.0.0.1 at a free port, or on another loopback `address` (127.0.0.2 ...) and `port`.
  explicit HttpStub(Handler handler, const char* address = "127.0.0.1", int port = 0)
      : handler_(std::move(handler)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    ::inet_pton(AF_INET, address, &addr.sin_addr);
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
        ::listen(fd_, 16) != 0) {
      ::close(fd_);
      fd_ = -1;
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~HttpStub() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  HttpStub(const HttpStub&) = delete;
  HttpStub& operator=(const HttpStub&) = delete;

  bool available() const { return fd_ >= 0; }
  int port() const { return port_; }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  // "METHOD path" of every request so far.
  std::vector<std::string> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  void serve() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      const int client = ::accept(fd_, nullptr, nullptr);
      if (client < 0) continue;
      timeval timeout{2, 0};
      ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
      std::string request;
      char buf[4096];
      while (request.find("\r\n\r\n") == std::string::npos && request.size() < 65536) {
        const auto n = ::recv(client, buf, sizeof buf, 0);
        if (n <= 0) break;
        request.append(buf, static_cast<std::size_t>(n));
      }
      const auto line = request.substr(0, request.find("\r\n"));
      const auto space = line.find(' ');
      const auto method = line.substr(0, space);
      const auto path = space == std::string::npos
                            ? std::string()
                            : line.substr(space + 1, line.find(' ', space + 1) - space - 1);
      {
        std::lock_guard lock(mu_);
        requests_.push_back(method + " " + path);
      }
      const StubReply reply = handler_(method, path);
      const std::string head = "HTTP/1.1 " + std::to_string(reply.status) +
                               " Stub\r\nContent-Type: " + reply.content_type +
                               "\r\nContent-Length: " + std::to_string(reply.body.size()) +
                               "\r\nConnection: close\r\n" + extraHeaders(reply) + "\r\n";
      const std::string out = head + (method == "HEAD" ? std::string() : reply.body);
      (void)::send(client, out.data(), out.size(), MSG_NOSIGNAL);
      ::close(client);
    }
  }

  static std::string extraHeaders(const StubReply& reply) {
    std::string out;
    for (const auto& [name, value] : reply.headers)
      out += name + ": " + value + "\r\n";
    return out;
  }

  Handler handler_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::vector<std::string> requests_;
};

}  // namespace certsteward::testing
