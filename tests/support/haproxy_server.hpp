// HaproxyServer: a real HAProxy (Debian's) started by a test on 127.0.0.1, terminating TLS with
// `<dir>/site.pem` (leaf, chain and key of `initial`) at a free port, with its runtime API on
// another free port at level admin; in its own temporary directory, stopped and removed by the
// destructor. available() is false, with a reason, when haproxy is not installed.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "support/child_process.hpp"
#include "support/free_port.hpp"
#include "support/test_certificates.hpp"

namespace certsteward::testing {

class HaproxyServer : public LocalServer {
 public:
  explicit HaproxyServer(const TestMaterial& initial) {
    if (!std::filesystem::exists("/usr/sbin/haproxy")) {
      reason_ = "haproxy is not installed (scripts/setup installs it)";
      return;
    }
    dir_ = freshServerDir("haproxy");
    tlsPort_ = freeLoopbackPort();
    apiPort_ = freeLoopbackPort();
    while (apiPort_ == tlsPort_)
      apiPort_ = freeLoopbackPort();
    const auto d = dir_.string();
    std::ofstream(dir_ / "site.pem")
        << initial.certificate_pem << initial.chain_pem << initial.private_key_pem;
    std::ofstream(dir_ / "haproxy.cfg")
        << "global\n  stats socket ipv4@127.0.0.1:" << apiPort_ << " level admin\n"
        << "  pidfile " << d << "/haproxy.pid\n"
        << "defaults\n  mode http\n  timeout connect 5s\n  timeout client 5s\n"
        << "  timeout server 5s\n"
        << "frontend tls\n  bind 127.0.0.1:" << tlsPort_ << " ssl crt " << d << "/site.pem\n"
        << "  http-request return status 200 content-type text/plain string ok\n";
    pid_ =
        spawnLogged({"/usr/sbin/haproxy", "-db", "-f", d + "/haproxy.cfg"}, dir_ / "haproxy.log");
    reason_ = waitUntilReady(
        pid_, dir_ / "haproxy.log", "haproxy",
        [&](const std::string&) { return loopbackAccepts(apiPort_) && loopbackAccepts(tlsPort_); },
        std::chrono::seconds{10});
  }

  int tlsPort() const { return tlsPort_; }
  std::string tlsAddress() const { return "127.0.0.1:" + std::to_string(tlsPort_); }
  std::string runtimeAddress() const { return "127.0.0.1:" + std::to_string(apiPort_); }
  std::string certName() const { return (dir_ / "site.pem").string(); }
  pid_t pid() const { return pid_; }

 private:
  int tlsPort_ = 0;
  int apiPort_ = 0;
};

}  // namespace certsteward::testing
