// Small socket helpers of the distribution modules: a TCP or unix-socket connection with
// timeouts, and the TLS check that a server serves a given leaf certificate.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <certsteward/domain/distribution_settings.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::adapters::distribution {

// An open socket, closed on destruction.
class Socket {
 public:
  Socket() = default;
  explicit Socket(int fd) : fd_(fd) {}
  Socket(Socket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Socket& operator=(Socket&& other) noexcept;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket();
  int fd() const { return fd_; }

  // Sends all of `bytes`; reads until the peer closes (at most `limit` bytes, within `total`).
  // Errors carry reason TIMEOUT or CONNECT_FAILED.
  domain::Status sendAll(const std::string& bytes);
  domain::Result<std::string> readToEnd(std::size_t limit, std::chrono::milliseconds total);

 private:
  int fd_ = -1;
};

// "host:port" over TCP, or "unix:/path"; every later read and write is bounded by `timeout`.
// Errors: reason CONNECT_FAILED (refused, unreachable, unknown host) or TIMEOUT.
domain::Result<Socket> connectTo(const std::string& address, std::chrono::milliseconds timeout);

inline std::chrono::milliseconds millis(domain::Duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d);
}

// How long a served-certificate check waits for a reload to take effect, at most.
inline std::chrono::milliseconds verifyPatience() {
  return std::chrono::seconds{10};
}

// nullopt when the TLS server at `settings`' verify_address (SNI: verify_server_name) serves
// `leafPem` as its certificate — tried again until `timeout`, as a reload takes effect a moment
// later — else what it serves instead (its serial) or why it could not be asked.
std::optional<std::string> checkServedCertificate(const domain::Settings& settings,
                                                  const std::string& leafPem,
                                                  std::chrono::milliseconds timeout);

}  // namespace certsteward::adapters::distribution
