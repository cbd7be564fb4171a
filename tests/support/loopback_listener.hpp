// LoopbackListener: a TCP port on 127.0.0.1 whose accept loop hands every connection to a
// handler (which owns and closes the descriptor): a peer that is not what a module expects (a
// banner service, an impostor of a protocol). Bounded: the loop wakes every 100 ms to see whether
// it should stop; the destructor stops and joins it.
#pragma once

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <thread>
#include <utility>

namespace certsteward::testing {

class LoopbackListener {
 public:
  explicit LoopbackListener(std::function<void(int client)> handler)
      : handler_(std::move(handler)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0 ||
        ::listen(fd_, 8) != 0) {
      return;
    }
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      while (!stop_) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 100) <= 0) continue;
        const int client = ::accept(fd_, nullptr, nullptr);
        if (client >= 0) handler_(client);
      }
    });
  }
  ~LoopbackListener() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
  }
  LoopbackListener(const LoopbackListener&) = delete;
  LoopbackListener& operator=(const LoopbackListener&) = delete;
  int port() const { return port_; }  // 0 when it could not listen

 private:
  std::function<void(int)> handler_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace certsteward::testing
