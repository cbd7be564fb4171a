// KnotServer: a real Knot DNS (`knotd`, Debian's knot package) started by a test on 127.0.0.1
// at a free port, primary for the zone "example.test" with RFC 2136 updates allowed to one TSIG
// key (hmac-sha256), in its own temporary directory: a second RFC 2136 server beside bind9.
// Stopped (SIGTERM, then SIGKILL) and removed by the destructor. available() is false, with a
// reason, when Knot is not installed or does not start.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

#include "support/child_process.hpp"
#include "support/free_port.hpp"

namespace certsteward::testing {

class KnotServer : public LocalServer {
 public:
  static constexpr const char* kZone = "example.test.";
  static constexpr const char* kKey = "certsteward-knot";
  static constexpr const char* kSecret = "p4y9JOSHuS9Y0zcQpaZDeWGm4dC1fbD4tSjyLDXb6Gk=";

  KnotServer() {
    if (!std::filesystem::exists("/usr/sbin/knotd")) {
      reason_ = "Knot DNS is not installed (scripts/setup installs knot)";
      return;
    }
    dir_ = freshServerDir("knot");
    port_ = freeLoopbackPort();
    const auto d = dir_.string();
    std::ofstream(dir_ / "example.test.zone")
        << "$ORIGIN example.test.\n$TTL 60\n"
        << "@ SOA ns1.example.test. hostmaster.example.test. 1 3600 600 86400 60\n"
        << "@ NS ns1.example.test.\nns1 A 127.0.0.1\n";
    std::ofstream(dir_ / "knot.conf")
        << "server:\n  listen: 127.0.0.1@" << port_ << "\n  rundir: \"" << d << "\"\n"
        << "log:\n  - target: stderr\n    any: info\n"
        << "database:\n  storage: \"" << d << "\"\n"
        << "control:\n  listen: \"" << d << "/knot.sock\"\n"
        << "key:\n  - id: " << kKey << "\n    algorithm: hmac-sha256\n    secret: " << kSecret
        << "\n"
        << "acl:\n  - id: update\n    key: " << kKey << "\n    action: update\n"
        << "template:\n  - id: default\n    storage: \"" << d << "\"\n    file: \"%s.zone\"\n"
        << "    zonefile-sync: -1\n"
        << "zone:\n  - domain: example.test\n    acl: update\n";
    pid_ = spawnLogged({"/usr/sbin/knotd", "-c", d + "/knot.conf"}, dir_ / "knot.log");
    reason_ = waitUntilReady(pid_, dir_ / "knot.log", "Knot DNS", [](const std::string& text) {
      return text.find("[example.test.] loaded") != std::string::npos;
    });
  }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  std::string log() const { return readLog(dir_ / "knot.log"); }
};

// The one Knot a test process shares (started on first use, stopped at exit).
inline KnotServer& knot() {
  static KnotServer server;
  return server;
}

}  // namespace certsteward::testing
