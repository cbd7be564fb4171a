// A loopback port free for both TCP and UDP right now (bound to port 0, then released), for
// servers that tests start themselves.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace certsteward::testing {

inline int freeLoopbackPort() {
  for (int attempt = 0; attempt < 50; ++attempt) {
    const int tcp = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof addr;
    if (::bind(tcp, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::getsockname(tcp, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ::close(tcp);
      continue;
    }
    const int udp = ::socket(AF_INET, SOCK_DGRAM, 0);
    const bool udpFree = ::bind(udp, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(udp);
    ::close(tcp);
    if (udpFree) return ntohs(addr.sin_port);
  }
  throw std::runtime_error("no free loopback port");
}

// Whether something accepts TCP connections on 127.0.0.1:`port` now.
inline bool loopbackAccepts(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

}  // namespace certsteward::testing
