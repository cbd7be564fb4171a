// AcmeDnsStandIn: tests/support/acmedns_standin.py (under Debian's python3) on 127.0.0.1, an
// acme-dns API whose accounts live in bind9's zone "delegated.test": each update rewrites the
// account's TXT set there by RFC 2136, so Pebble (resolving through bind9) follows a CNAME into
// it. The first registration gets kFirstSubdomain, which bind9's example.test delegates
// `_acme-challenge.acme.example.test` to. Not the real acme-dns: see docs/operations.md.
// Stopped and removed by the destructor.
#pragma once

#include <filesystem>
#include <string>

#include <certsteward/adapters/common/http_client.hpp>
#include "support/bind9_server.hpp"
#include "support/child_process.hpp"
#include "support/free_port.hpp"

namespace certsteward::testing {

class AcmeDnsStandIn : public LocalServer {
 public:
  static constexpr const char* kFirstSubdomain = "8e5700ea-a4bf-41c7-8a77-e990661dcc6a";
  static constexpr const char* kZone = "delegated.test";

  explicit AcmeDnsStandIn(const Bind9Server& dns) {
    if (!std::filesystem::exists("/usr/bin/python3") ||
        !std::filesystem::exists("/usr/bin/nsupdate")) {
      reason_ = "python3 or nsupdate (bind9-dnsutils) is not installed";
      return;
    }
    dir_ = freshServerDir("acmedns");
    port_ = freeLoopbackPort();
    pid_ = spawnLogged({"/usr/bin/python3",
                        std::string(CERTSTEWARD_SOURCE_DIR) + "/tests/support/acmedns_standin.py",
                        std::to_string(port_), dns.address(), Bind9Server::kKey256,
                        Bind9Server::kSecret256, kZone, kFirstSubdomain},
                       dir_ / "standin.log");
    reason_ = waitUntilReady(
        pid_, dir_ / "standin.log", "the acme-dns stand-in",
        [](const std::string& text) { return text.find("listening") != std::string::npos; });
  }

  std::string apiUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // The next `count` updates are answered 500.
  void failUpdates(int count) const { post("/__standin/fail", std::to_string(count)); }
  // {"registrations": n, "updates": n}
  std::string stats() const {
    adapters::common::HttpRequest request;
    request.url = apiUrl() + "/__standin/stats";
    auto answer = adapters::common::getHttp(request);
    return answer ? answer->body : std::string();
  }

 private:
  void post(const std::string& path, const std::string& body) const {
    adapters::common::HttpRequest request;
    request.url = apiUrl() + path;
    request.body = body;
    (void)adapters::common::postHttp(request);
  }
};

}  // namespace certsteward::testing
